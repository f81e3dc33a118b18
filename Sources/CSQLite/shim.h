// SQLite, reached only through this shim. SQLITE_TRANSIENT is a macro Swift cannot import.
#ifndef NEWSATLAS_CSQLITE_SHIM_H
#define NEWSATLAS_CSQLITE_SHIM_H
#include <sqlite3.h>
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }
#endif
