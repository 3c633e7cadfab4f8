#include <sqlite3.h>

// SQLITE_TRANSIENT (SQLite copies the bytes before the call returns) is a cast macro Swift cannot import.
static inline int csqlite_bind_text_copy(sqlite3_stmt *statement, int index, const char *text, int count) {
    return sqlite3_bind_text(statement, index, text, count, SQLITE_TRANSIENT);
}
static inline int csqlite_bind_blob_copy(sqlite3_stmt *statement, int index, const void *bytes, int count) {
    return sqlite3_bind_blob(statement, index, bytes, count, SQLITE_TRANSIENT);
}
