import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A download into a file that survives a cut: what the file holds already is asked for no more (`Range:
/// bytes=N-`), and a server that answers the whole file instead (`200`) has it written from the start.
public struct HTTPDownload: Sendable {
    public var url: URL
    /// The file the body goes to: created when missing; the bytes it holds are taken as the start of the body.
    public var path: String
    /// The largest whole body accepted (`tooLarge` beyond it).
    public var limit: Int64
    /// A transfer that receives nothing for this long ends (`stalled`), and so does a connection that takes
    /// this long to open.
    public var stallSeconds: Double = 30
    /// The whole download's deadline.
    public var deadlineSeconds: Double = 3600

    public init(url: URL, path: String, limit: Int64) {
        self.url = url
        self.path = path
        self.limit = limit
    }
}

/// How a download ended.
public struct HTTPDownloaded: Sendable, Equatable {
    /// `200` (the whole body, written from the start) or `206` (the rest after what the file held).
    public var status: Int
    /// The file's size now: the whole body.
    public var bytes: Int64
    /// Where this transfer started writing: what the file held when it was resumed, 0 when it started over.
    public var resumedFrom: Int64
}

/// A download's file, written by libcurl's callbacks on the driver's thread (and read by the caller only
/// after the transfer ended): unchecked Sendable for that reason.
final class DownloadSink: @unchecked Sendable {
    let fd: Int32
    let path: String
    /// What the file held when the transfer began (asked for with `Range` when more than 0).
    let offset: Int64
    let limit: Int64
    let stallSeconds: Double
    let progress: @Sendable (_ done: Int64, _ total: Int64?) -> Void
    /// Bytes in the file now, counting those it held.
    private(set) var written: Int64
    /// The whole body's size, once the answer's head says it.
    private(set) var total: Int64?
    /// Where this transfer began writing (0 after a `200`), once it began.
    private(set) var startedAt: Int64?
    /// A failure's body (an error page), at most `errorBodyLimit`.
    static let errorBodyLimit = 64 * 1024

    init(fd: Int32, path: String, offset: Int64, limit: Int64, stallSeconds: Double,
         progress: @escaping @Sendable (Int64, Int64?) -> Void) {
        self.fd = fd
        self.path = path
        self.offset = offset
        self.limit = limit
        self.stallSeconds = stallSeconds
        self.progress = progress
        self.written = offset
    }

    /// Takes a piece of the body; a failure ends the transfer with it.
    func take(_ bytes: UnsafeRawBufferPointer, transfer: Transfer) -> SyncError? {
        guard transfer.status == 200 || transfer.status == 206 else {
            // An error page is kept (a little of it) for the caller, never written to the file.
            let room = max(0, Self.errorBodyLimit - transfer.body.count)
            if room > 0, let base = bytes.baseAddress { transfer.body.append(contentsOf: UnsafeRawBufferPointer(start: base, count: min(room, bytes.count))) }
            return nil
        }
        if startedAt == nil, let failure = begin(transfer) { return failure }
        guard written + Int64(bytes.count) <= limit else { return .tooLarge(url: transfer.display, limit: Int(limit)) }
        var done = 0
        while done < bytes.count, let base = bytes.baseAddress {
            let n = write(fd, base + done, bytes.count - done)
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return .file(path: path, reason: String(cString: strerror(n < 0 ? errno : EIO))) }
            done += n
        }
        written += Int64(bytes.count)
        progress(written, total)
        return nil
    }

    /// The first byte of a `200` or `206`: where the body starts in the file, and its whole size.
    private func begin(_ transfer: Transfer) -> SyncError? {
        if transfer.status == 200 {
            // The whole body, whatever was asked: the file starts over.
            guard ftruncate(fd, 0) == 0, lseek(fd, 0, SEEK_SET) == 0 else {
                return .file(path: path, reason: String(cString: strerror(errno)))
            }
            written = 0
            startedAt = 0
            total = transfer.headers["content-length"].flatMap { Int64($0) }
        } else {
            // `Content-Range: bytes START-END/TOTAL`: the rest must start where the file ends.
            guard let range = Self.contentRange(transfer.headers["content-range"]), range.start == offset else {
                return .network(url: transfer.display, reason: "a 206 whose Content-Range (\(transfer.headers["content-range"] ?? "none")) does not start at byte \(offset)")
            }
            guard lseek(fd, off_t(offset), SEEK_SET) == off_t(offset) else { return .file(path: path, reason: String(cString: strerror(errno))) }
            startedAt = offset
            total = range.total
        }
        if let total, total > limit { return .tooLarge(url: transfer.display, limit: Int(limit)) }
        progress(written, total)
        return nil
    }

    /// `bytes 100-199/1000` → (100, 1000); the total may be `*` (unknown).
    static func contentRange(_ value: String?) -> (start: Int64, total: Int64?)? {
        guard let value, value.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst(6)
        let parts = spec.split(separator: "/", maxSplits: 1)
        guard parts.count == 2, let dash = parts[0].firstIndex(of: "-"), let start = Int64(parts[0][..<dash]) else { return nil }
        return (start, parts[1] == "*" ? nil : Int64(parts[1]))
    }
}

extension HTTPFetcher {
    /// Downloads `download.url` into `download.path`, resuming after what the file holds (`Range`); reports
    /// `progress` (bytes in the file, the whole size when known) from the transfer's thread as bytes come.
    ///
    /// A `206` must continue exactly where the file ends (its `Content-Range`); a `200` writes the file from
    /// the start. Any other status is `SyncError.status`, the file left as it was; a cut (the body shorter than
    /// announced) is `truncated`, the bytes received kept for the next call to resume after. A file-system
    /// failure (a full disk) is `SyncError.file`. The file is fsynced before this returns.
    public func download(_ download: HTTPDownload,
                         progress: @escaping @Sendable (_ done: Int64, _ total: Int64?) -> Void = { _, _ in }) async throws(SyncError) -> HTTPDownloaded {
        let driver = try runningDriver()
        let fd = open(download.path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .file(path: download.path, reason: String(cString: strerror(errno))) }
        defer { Glibc.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .file(path: download.path, reason: String(cString: strerror(errno))) }
        let offset = Int64(info.st_size)
        var request = HTTPRequest(url: download.url)
        if offset > 0 { request.setValue("bytes=\(offset)-", forHTTPHeaderField: "Range") }
        let sink = DownloadSink(fd: fd, path: download.path, offset: offset, limit: download.limit, stallSeconds: download.stallSeconds,
                                progress: progress)
        let transfer = Transfer(request: request, limit: Int(clamping: download.limit), timeoutSeconds: download.deadlineSeconds,
                                display: Self.display(download.url), sink: sink)
        let result = await perform(transfer, on: driver)
        // The transfer has ended: the driver's thread no longer touches the sink.
        _ = fsync(fd)
        let answer = try result.get()
        guard answer.status == 200 || answer.status == 206 else { throw .status(url: transfer.display, code: answer.status) }
        if answer.status == 206 && sink.startedAt == nil {
            // An empty 206 for a range that is all there: the file is whole.
            return HTTPDownloaded(status: 206, bytes: sink.written, resumedFrom: offset)
        }
        if answer.status == 200 && sink.startedAt == nil {
            // A 200 with an empty body: the file is that empty body.
            guard ftruncate(fd, 0) == 0 else { throw .file(path: download.path, reason: String(cString: strerror(errno))) }
            return HTTPDownloaded(status: 200, bytes: 0, resumedFrom: 0)
        }
        return HTTPDownloaded(status: answer.status, bytes: sink.written, resumedFrom: sink.startedAt ?? offset)
    }
}
