import HealthRecord
import Store
import Testing
@testable import TimelineAPI

/// What a store failure answers: the store's condition (full, read-only, failing writes) is `503
/// store_unavailable`, which clients may retry; anything else stays a `500`.
@Suite("store failures")
struct StoreFailureTests {
    @Test("a full disk, a read-only store and a failing write are 503 store_unavailable", arguments: [
        Int32(13),             // SQLITE_FULL
        Int32(8),              // SQLITE_READONLY
        Int32(8 | 3 << 8),     // SQLITE_READONLY_ROLLBACK
        Int32(10 | 3 << 8),    // SQLITE_IOERR_WRITE: EROFS from a file system remounted read-only
        Int32(10 | 24 << 8),   // SQLITE_IOERR_FSYNC… (any I/O error)
    ])
    func unavailable(code: Int32) {
        let error = APIError.store(.database(DatabaseError(code: code, message: "disk I/O error")))
        #expect(error.status.code == 503)
        #expect(error.code == "store_unavailable")
        #expect(error.message.contains("reading still works"))
    }

    @Test("a corrupt store or a constraint is a 500, not a 503", arguments: [Int32(11), Int32(19)])
    func internalError(code: Int32) {
        #expect(APIError.store(.database(DatabaseError(code: code, message: "x"))).status.code == 500)
    }

    @Test("a write lock held by another process past the wait is 503 store_busy with Retry-After: the client may send it again")
    func busy() {
        for code in [Int32(5), Int32(5 | 2 << 8)] { // SQLITE_BUSY, SQLITE_BUSY_SNAPSHOT
            let error = APIError.store(.database(DatabaseError(code: code, message: "database is locked")))
            #expect(error.status.code == 503)
            #expect(error.code == "store_busy")
            #expect(error.headers["Retry-After"] == ["5"])
            #expect(error.message.contains("nothing was changed"))
        }
    }
}
