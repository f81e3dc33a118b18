"""ClusterIndex against supercluster 8.0.1's own answers (Tests/Fixtures/supercluster)."""

import json

import numpy as np
import pytest

import newsatlas
from conftest import FIXTURES


@pytest.fixture(scope="module")
def points_10k():
    points = np.array(json.loads((FIXTURES / "points-10k.json").read_text())["points"])
    return points[:, 1], points[:, 0]


@pytest.mark.parametrize("zoom", [0, 2])
def test_clusters_match_supercluster(points_10k, zoom):
    golden = json.loads((FIXTURES / "supercluster" / f"points-10k-clusters-z{zoom}.json").read_text())
    features = golden["features"] if isinstance(golden, dict) else golden
    index = newsatlas.ClusterIndex(*points_10k)
    items = index.clusters((-180, -90, 180, 90), zoom)
    assert len(items) == len(features)
    for k, feature in enumerate(features):
        properties = feature["properties"]
        if properties.get("cluster"):
            assert items.is_cluster[k] and items.ids[k] == properties["cluster_id"]
            assert items.point_counts[k] == properties["point_count"]
        else:
            assert not items.is_cluster[k] and items.ids[k] == properties["index"]
        lon, lat = feature["geometry"]["coordinates"]
        assert abs(items.longitudes[k] - lon) < 1e-9 and abs(items.latitudes[k] - lat) < 1e-9


def test_navigation_matches_supercluster(points_10k):
    golden = json.loads((FIXTURES / "supercluster" / "points-10k-cluster-navigation.json").read_text())
    index = newsatlas.ClusterIndex(*points_10k)
    checked = 0
    for cluster in golden["clusters"][:50]:
        cid = cluster["cluster_id"]
        assert index.expansion_zoom(cid) == cluster["expansionZoom"]
        children = index.children(cid)
        assert children.ids.tolist() == [c.get("cluster_id", c.get("index")) for c in cluster["children"]]
        assert index.leaves(cid).tolist() == cluster["leavesDefault"]
        assert index.leaves(cid, 5, 3).tolist() == cluster["leavesLimit5Offset3"]
        assert index.leaves(cid, None).tolist() == cluster["leavesAll"]
        checked += 1
    assert checked > 0


def test_bad_cluster_ids_and_options(points_10k):
    index = newsatlas.ClusterIndex(*points_10k)
    with pytest.raises(ValueError, match="No cluster has the id 3 in this index."):
        index.children(3)
    with pytest.raises(ValueError, match="No cluster has the id"):
        index.expansion_zoom(-5)
    with pytest.raises(ValueError, match="zoom"):
        index.clusters((-180, -90, 180, 90), 40)
    with pytest.raises(ValueError):
        newsatlas.ClusterIndex(*points_10k, max_zoom=99)
    with pytest.raises(ValueError):
        newsatlas.ClusterIndex(*points_10k, radius=0)
