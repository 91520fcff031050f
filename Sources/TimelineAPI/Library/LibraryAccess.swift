import Dispatch
import HTTPKit
import Library

/// The offline health library as the routes reach it: the reader of `STATE_DIR/library/`, a thread of its
/// own for the reader's synchronous calls, and the update side, when the daemon runs one.
///
/// `Library` serialises its calls on one SQLite connection; one serial queue runs them, so that a burst of
/// requests waits in the queue, not as threads blocked on the reader's lock, and no call ever runs on an
/// event loop or on the concurrency pool's threads.
public final class LibraryAccess: Sendable {
    public let library: Library
    public let updates: (any LibraryUpdates)?
    private let queue = DispatchQueue(label: "hreaderd.library")

    public init(library: Library, updates: (any LibraryUpdates)? = nil) {
        self.library = library
        self.updates = updates
    }

    /// Runs `body` with the reader on the library's thread and returns what it returns.
    func read<T: Sendable>(_ body: @escaping @Sendable (Library) throws -> T) async throws -> T {
        let library = self.library
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body(library) }) }
        }
    }
}

/// A library failure in a route: no pack installed is `503 no_library` (the library routes work once one
/// is); an installed pack that cannot be read is `503` with the error's code; anything else `500`.
extension LibraryError: HTTPResponseError {
    public var response: Response {
        switch self {
        case .notInstalled:
            return LibraryRoutes.noLibrary.response
        case .installedPackDamaged:
            return HTTPError(.serviceUnavailable, code: code, message: description).response
        default:
            return HTTPError(.internalServerError, code: code, message: description).response
        }
    }
}
