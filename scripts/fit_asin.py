#!/usr/bin/env python3
"""Prints the coefficients of GreatCircle.arcsine's polynomial (Sources/GeoIndex/GreatCircle.swift).

asin y = y + y z P(z) with z = y^2, for y in [0, 1/2]; P is the Chebyshev fit of degree 11 to
(asin sqrt z - sqrt z) / z^1.5 on [0, 1/4], computed in 50-digit arithmetic by mpmath (BSD licence; PyPI).
Its error bound is printed too: times z <= 1/4 it is the relative error the fit adds to asin (below 1e-16).
"""
import mpmath as mp

mp.mp.dps = 50


def p(z):
    if z == 0:
        return mp.mpf(1) / 6
    y = mp.sqrt(z)
    return (mp.asin(y) - y) / (z * y)


coefficients, error = mp.chebyfit(p, [0, 0.25], 12, error=True)
print("max |error| of P:", mp.nstr(error, 3), "; relative error added to asin: <=", mp.nstr(error / 4, 3))
for c in reversed(coefficients):  # lowest degree first
    print(repr(float(c)))
