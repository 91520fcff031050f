import Dispatch
import FoundationEssentials
import ImportJobs
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Writes the daemon's log lines to stderr from a thread of its own.
///
/// The access log writes a line per request, from an event loop. A `write(2)` there costs a system call
/// per request and blocks every connection of that loop whenever the journal or a pipe is slow to read.
/// Here a line is appended to a buffer; the writer thread wakes on the first line, waits `batchDelay` seconds for
/// more, and writes them together. `flush()` writes what is pending at once (at exit).
/// When stderr does not keep up, at most `maximumPendingBytes` wait; further lines are counted, dropped
/// and reported, because a logger must never stall the server or grow without bound.
final class LogLineWriter: Sendable {
    static let shared = LogLineWriter(fileDescriptor: STDERR_FILENO)

    /// Seconds the writer waits after the first line for more to batch.
    static let batchDelay = 0.002
    /// The most bytes that wait for stderr; beyond it lines are dropped (and counted).
    static let maximumPendingBytes = 1 << 20

    private struct Pending {
        var bytes: [UInt8] = []
        var dropped = 0
    }

    private let fileDescriptor: Int32
    private let maximumPendingBytes: Int
    private let pending = Mutex(Pending())
    private let wake = DispatchSemaphore(value: 0)
    /// Keeps the thread's writes and `flush()` from interleaving their batches.
    private let writing = Mutex(())

    init(fileDescriptor: Int32, maximumPendingBytes: Int = LogLineWriter.maximumPendingBytes) {
        self.fileDescriptor = fileDescriptor
        self.maximumPendingBytes = maximumPendingBytes
        DetachedThread.start(named: "log-writer") { [self] in
            while true {
                wake.wait()
                usleep(UInt32(Self.batchDelay * 1_000_000))
                flush()
            }
        }
    }

    /// Queues `line` (which ends in a newline). Never blocks on the output.
    func write(_ line: String) {
        let first = pending.withLock { pending -> Bool in
            let wasEmpty = pending.bytes.isEmpty && pending.dropped == 0
            if pending.bytes.count + line.utf8.count > maximumPendingBytes {
                pending.dropped += 1
            } else {
                pending.bytes.append(contentsOf: line.utf8)
            }
            return wasEmpty
        }
        if first { wake.signal() }
    }

    /// Queues the line `appendLine` appends (ending in a newline) straight into the pending bytes, with no
    /// line of its own made first (the access log's path). Never blocks on the output.
    func write(appending appendLine: (inout [UInt8]) -> Void) {
        let first = pending.withLock { pending -> Bool in
            let wasEmpty = pending.bytes.isEmpty && pending.dropped == 0
            let before = pending.bytes.count
            appendLine(&pending.bytes)
            if pending.bytes.count > maximumPendingBytes {
                pending.bytes.removeSubrange(before...)
                pending.dropped += 1
            }
            return wasEmpty
        }
        if first { wake.signal() }
    }

    /// Writes every queued line now.
    func flush() {
        writing.withLock { _ in
            var batch = pending.withLock { pending -> Pending in
                var taken = Pending()
                swap(&taken, &pending)
                return taken
            }
            if batch.dropped > 0 {
                batch.bytes.append(contentsOf: "\(batch.dropped) log lines dropped: stderr did not keep up\n".utf8)
            }
            writeAll(batch.bytes)
        }
    }

    private func writeAll(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return  // stderr is gone; there is nowhere left to say so
                }
                offset += written
            }
        }
    }
}
