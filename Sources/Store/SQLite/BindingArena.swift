/// Memory that holds the text and blobs bound to one run of a statement (`Statement.execute(binding:)`), so
/// that SQLite binds them without copying (`SQLITE_STATIC`). Bound with a copy (`SQLITE_TRANSIENT`), each value
/// was a `malloc`, a copy and a `free` inside SQLite, about ten times for every entry an import writes.
///
/// A value stays where it was copied until `reset`, which the statement calls before the next run binds
/// again: the arena never moves what is bound. A value that does not fit the block gets a block of its own,
/// which the statement frees (with its bindings cleared) as soon as its run is over, so that a large value
/// is not held until the statement's next run.
final class BindingArena {
    /// The block reused by every run: an entry's values are a few hundred bytes to a few KB.
    static let blockBytes = 16 << 10

    private let block: UnsafeMutableRawPointer
    private var used = 0
    private var ownBlocks: [UnsafeMutableRawPointer] = []

    init() {
        block = UnsafeMutableRawPointer.allocate(byteCount: Self.blockBytes, alignment: 16)
    }

    deinit {
        reset()
        block.deallocate()
    }

    /// A copy of `bytes` that stays put until `reset`. Never null, also for no bytes (SQLite would bind NULL).
    func copy(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawPointer {
        let count = bytes.count
        let target: UnsafeMutableRawPointer
        if count <= Self.blockBytes - used {
            target = block + used
            used += count
        } else {
            target = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 1)
            ownBlocks.append(target)
        }
        if let source = bytes.baseAddress, count > 0 { target.copyMemory(from: source, byteCount: count) }
        return UnsafeRawPointer(target)
    }

    /// Whether a value got a block of its own since the last reset.
    var holdsOwnBlocks: Bool { !ownBlocks.isEmpty }

    /// Forgets every copy: what was bound from them must be bound again before the statement runs.
    func reset() {
        used = 0
        for own in ownBlocks { own.deallocate() }
        ownBlocks.removeAll(keepingCapacity: true)
    }
}
