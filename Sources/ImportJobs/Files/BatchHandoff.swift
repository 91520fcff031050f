import Dispatch
import Synchronization

/// Batches handed from a producing thread to a consuming one, at most `capacity` waiting: the reader of a
/// large file parses the next batches while the store writes the last, and never runs more than
/// `capacity` batches ahead of it (which bounds the memory they take).
///
/// A batch the consumer is done with goes back (`giveBack`) and is freed by the producer (`freeGivenBack`),
/// on the thread that allocated it. Freed by the consumer, each of a batch's thousands of strings went back
/// to the producer's malloc arena under that arena's lock, against the producer's own allocations: 0.27 s of
/// the store's writer (the import's critical path) for 100,000 FHIR resources.
final class BatchHandoff<Batch: Sendable>: Sendable {
    enum Item: Sendable {
        case batch(Batch)
        /// The producer has given every batch.
        case end
        /// The producer failed: no more batches.
        case failed(any Error)
    }

    private let waiting = Mutex<[Item]>([])
    private let givenBack = Mutex<[Batch]>([])
    private let stopped = Atomic<Bool>(false)
    private let items = DispatchSemaphore(value: 0)
    private let slots: DispatchSemaphore

    init(capacity: Int) {
        // Made at zero and signalled up: libdispatch traps when a semaphore goes with a value below the one
        // it was made with, as this one does when the consumer stops with batches left in it.
        slots = DispatchSemaphore(value: 0)
        for _ in 0..<capacity { slots.signal() }
    }

    /// Hands an item on, waiting for room. False when the consumer has stopped: the producer should too.
    @discardableResult
    func put(_ item: Item) -> Bool {
        slots.wait()
        guard !stopped.load(ordering: .acquiring) else {
            slots.signal()  // passed on, so that no later `put` waits either
            return false
        }
        waiting.withLock { $0.append(item) }
        items.signal()
        return true
    }

    /// The next item, waiting for one.
    func take() -> Item {
        take(whileWaiting: {})
    }

    /// The next item; when none is there yet, `whileWaiting` runs first (once), then the wait.
    func take(whileWaiting: () throws -> Void) rethrows -> Item {
        if items.wait(timeout: .now()) == .timedOut {
            try whileWaiting()
            items.wait()
        }
        let item = waiting.withLock { $0.removeFirst() }
        slots.signal()
        return item
    }

    /// The consumer is done with `batch`: the producer frees it.
    func giveBack(_ batch: Batch) {
        givenBack.withLock { $0.append(batch) }
    }

    /// Frees, on the calling (producing) thread, the batches the consumer gave back. Those given back after
    /// the producer's last call are freed with the handoff.
    func freeGivenBack() {
        var done: [Batch] = []
        givenBack.withLock { swap(&done, &$0) }
        // `done` goes here, outside the lock.
    }

    /// The consumer gives up: a producer waiting for room, or coming to `put` later, is told to stop.
    func stop() {
        stopped.store(true, ordering: .releasing)
        slots.signal()
    }

    /// From outside both (the import was cancelled): the producer is told to stop, and the consumer's next
    /// `take` gives `.failed(error)`, ahead of any batch still waiting.
    func cancel(_ error: any Error) {
        stop()
        waiting.withLock { $0.insert(.failed(error), at: 0) }
        items.signal()
    }
}
