import HTTPKit
import HealthRecord
import Store

/// The product's error answers, each a status, a stable code and a sentence (docs/api.md, "Conventions").
enum APIError {
    static let badPage = HTTPError(.badRequest, code: "bad_page",
                                   message: "page must be one of day, week, month, year, decade, all.")
    static let badEnd = HTTPError(.badRequest, code: "bad_end",
                                  message: "end must be an RFC 3339 timestamp, a YYYY-MM-DD day or epoch seconds.")
    static let badKey = HTTPError(.badRequest, code: "bad_key",
                                  message: "key must be one of Levels, NewMedication, MedRegiment (or levels, medication, regimen).")
    static let unknownPatient = HTTPError(.notFound, code: "unknown_patient", message: "There is no patient with that id.")
    static let noPatient = HTTPError(.conflict, code: "no_patient",
                                     message: "There is no patient yet: import a record first (hreaderd import-file, or a sync).")
    static let unknownEntry = HTTPError(.notFound, code: "not_found", message: "There is no timeline entry with that id.")
    static let locked = HTTPError(.locked, code: "locked", message: "The store is locked: sign in to unlock it.")

    static func badBody(_ error: PostBodyError) -> HTTPError {
        switch error {
        case .tooLarge: return HTTPError(.payloadTooLarge, code: "body_too_large", message: sentence(error.description))
        case .unsupportedMediaType: return HTTPError(.unsupportedMediaType, code: "unsupported_media_type", message: sentence(error.description))
        default: return HTTPError(.badRequest, code: "bad_body", message: sentence(error.description))
        }
    }

    /// Store failures: a full disk, a read-only store or failing writes (a file system remounted read-only
    /// answers EROFS, which SQLite reports as an I/O error) are `503` (reads keep working), and so is a write
    /// lock another process holds too long (`store_busy`, with `Retry-After`); anything else `500`.
    static func store(_ error: StoreError) -> HTTPError {
        switch error {
        case .closed: return locked
        case .notFound: return HTTPError.notFound
        case .database(let db) where db.isDiskFull || db.isReadOnly || db.isIOError:
            return HTTPError(.serviceUnavailable, code: "store_unavailable",
                             message: "The store cannot take writes right now (disk full, read-only or failing); reading still works.")
        case .database(let db) where db.isBusy:
            return storeBusy
        default: return HTTPError.internalServerError
        }
    }

    /// Another process holds the store's write lock past the wait (`hreaderd import-file` of a long record
    /// beside the daemon): the write is not done, and can be sent again; reads are not held up (WAL).
    static let storeBusyRetrySeconds = 5
    static let storeBusy = HTTPError(.serviceUnavailable, code: "store_busy",
                                     message: "Another process is writing to the store (an import or a sync from the command line?); nothing was changed: try again in a moment.",
                                     headers: ["Retry-After": String(storeBusyRetrySeconds)])

    static func sentence(_ text: String) -> String {
        guard let first = text.first else { return text }
        return first.uppercased() + text.dropFirst() + "."
    }
}
