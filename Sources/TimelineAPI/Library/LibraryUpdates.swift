import HTTPKit
import Library

/// The library's update side as the routes see it (`GET /library.json`, `POST /library/update`): the daemon's
/// update service (`hreaderd/Services/LibraryUpdateService`) conforms; TimelineAPI itself fetches nothing.
public protocol LibraryUpdates: Sendable {
    /// What the update side knows now: the publisher, the pack it offers, the last check, the update's progress.
    func status() -> LibraryUpdateStatus
    /// Starts an update (ask the publisher again, download, verify, install) and returns at once: the update
    /// runs in the service, and its progress is in `status()`. Refused while one runs, or with no publisher.
    func startUpdate() throws(LibraryUpdateRefusal) -> LibraryUpdateStatus
}

/// What the update side reports.
public struct LibraryUpdateStatus: Sendable, Equatable {
    /// The update's state: `idle` before the first update of this run; `downloading` while the publisher is
    /// asked again and the pack's file is fetched; `verifying` while it is checked and installed; then
    /// `installed` or `failed` (with `error`) until the next update starts.
    public enum State: String, Sendable {
        case idle, downloading, verifying, installed, failed
    }

    /// A newer pack the publisher offers, signed by a trusted key: never installed unasked.
    public struct Offer: Sendable, Equatable {
        public var version: PackVersion
        /// The size of its `.gz` file, what a download fetches.
        public var bytes: Int64
        public var created: Int64
        public var publisher: String

        public init(version: PackVersion, bytes: Int64, created: Int64, publisher: String) {
            self.version = version
            self.bytes = bytes
            self.created = created
            self.publisher = publisher
        }
    }

    /// The last check of the publisher's manifest (at start, then daily, and at each update).
    public struct Check: Sendable, Equatable {
        /// When it was made (epoch seconds); nil before the first.
        public var at: Int64?
        /// When the next one is due.
        public var nextAt: Int64?
        /// Why it failed, one sentence; nil when it succeeded.
        public var error: String?
        public var errorCode: String?

        public init(at: Int64? = nil, nextAt: Int64? = nil, error: String? = nil, errorCode: String? = nil) {
            self.at = at
            self.nextAt = nextAt
            self.error = error
            self.errorCode = errorCode
        }
    }

    /// The publisher's address (`--library-url`), nil when none is configured.
    public var publisherURL: String?
    public var available: Offer?
    public var check = Check()
    public var state: State = .idle
    /// Bytes of the pack's file downloaded so far (a resumed download counts what it kept).
    public var done: Int64 = 0
    /// Its size, when known.
    public var total: Int64?
    /// Why the last update failed, one sentence; nil unless `state` is `failed`.
    public var error: String?
    /// A stable code for the failure (`signature_not_verified`, `gzip_hash_mismatch`, `publisher_error`…).
    public var errorCode: String?
    /// When the current or last update started and ended.
    public var startedAt: Int64?
    public var finishedAt: Int64?

    public init(publisherURL: String? = nil) {
        self.publisherURL = publisherURL
    }

    /// Whether an update is running.
    public var isRunning: Bool { state == .downloading || state == .verifying }
}

/// Why `POST /library/update` did not start one.
public enum LibraryUpdateRefusal: Error, Sendable, Equatable, HTTPResponseError {
    /// One is running: its progress is in `GET /library.json`.
    case running
    /// `serve` was not given a publisher (`--library-url`).
    case noPublisher

    public var response: Response {
        switch self {
        case .running:
            return HTTPError(.conflict, code: "update_running",
                             message: "An update of the library is running: its progress is in /library.json.").response
        case .noPublisher:
            return HTTPError(.conflict, code: "no_publisher",
                             message: "No library publisher is configured: start the daemon with --library-url and --library-public-key.").response
        }
    }
}
