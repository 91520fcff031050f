#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file mapped read-only into memory and read front to back, its pages given back behind the reader.
///
/// A 1,000,000-entry record file is about 210 MB. Read into an array, it would sit in memory whole for the
/// length of the import; mapped, the kernel brings its pages in as they are read, and `release(before:)`
/// drops those already read from the process (they stay in the page cache, so a second pass is cheap), so
/// the resident part is a few MB whatever the file's size.
///
/// A file cut short by another process while it is mapped ends the process with `SIGBUS` when a page past
/// the new end is read. The one reader of mapped files is `import-file`, over the person's own files, and
/// it writes in one transaction that is then never committed: nothing of the import is kept.
final class MappedFile {
    /// At least this much is read between two `madvise` calls: fewer system calls, a bounded window.
    static let releaseStepBytes = 4 << 20

    let path: String
    let bytes: UnsafeBufferPointer<UInt8>
    /// What the file was when it was mapped: a later look at the path that finds another file, another size
    /// or another modification means its content may have changed under the mapping.
    private let identity: Identity
    private let base: UnsafeMutableRawPointer?
    private var releasedUpTo = 0
    private let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    init(path: String) throws(RecordFileError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .readFailed(path: path, reason: String(cString: strerror(errno))) }
        guard (status.st_mode & S_IFMT) == S_IFREG else { throw .cannotOpen(path: path, reason: "not a regular file") }
        self.path = path
        identity = Identity(status)
        let size = Int(status.st_size)
        guard size > 0 else {
            base = nil
            bytes = UnsafeBufferPointer(start: nil, count: 0)
            return
        }
        let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0)
        guard let mapped, mapped != MAP_FAILED else {
            throw .readFailed(path: path, reason: String(cString: strerror(errno)))
        }
        _ = madvise(mapped, size, MADV_SEQUENTIAL)
        base = mapped
        bytes = UnsafeBufferPointer(start: mapped.assumingMemoryBound(to: UInt8.self), count: size)
    }

    deinit {
        if let base { munmap(base, bytes.count) }
    }

    private struct Identity: Equatable {
        var device: UInt64, inode: UInt64, size: Int64
        var modified: Int, modifiedNanoseconds: Int, changed: Int, changedNanoseconds: Int

        init(_ status: stat) {
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
            size = Int64(status.st_size)
            modified = status.st_mtim.tv_sec
            modifiedNanoseconds = status.st_mtim.tv_nsec
            changed = status.st_ctim.tv_sec
            changedNanoseconds = status.st_ctim.tv_nsec
        }
    }

    /// Whether the path still names the file that was mapped, unwritten since (same device, inode, size,
    /// modification and change times).
    var isUnchanged: Bool {
        var status = stat()
        guard stat(path, &status) == 0 else { return false }
        return Identity(status) == identity
    }

    /// Gives back the pages wholly before `offset`: a pass has read them. Cheap to call often.
    func release(before offset: Int) {
        guard offset - releasedUpTo >= Self.releaseStepBytes else { return }
        releasedUpTo = release(from: releasedUpTo, before: offset)
    }

    /// Gives back the pages from the one holding `start` to the last one wholly before `offset`, for a
    /// reader going forward in several places at once; returns where its next release starts. A page given
    /// back that another reader still reads is read again from the page cache: never wrong, only slower.
    func release(from start: Int, before offset: Int) -> Int {
        let from = start / pageSize * pageSize
        let end = offset / pageSize * pageSize
        guard let base, end > from else { return start }
        _ = madvise(base + from, end - from, MADV_DONTNEED)
        return end
    }

    /// Gives back every page, before the next pass starts again from the beginning.
    func releaseAll() {
        if let base { _ = madvise(base, bytes.count, MADV_DONTNEED) }
        releasedUpTo = 0
    }
}
