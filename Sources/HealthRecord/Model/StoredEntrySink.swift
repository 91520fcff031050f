/// Takes the entries a read hands over one at a time, instead of the read holding them all: the summary's
/// measurements, where a long record's vital signs and results are hundreds of thousands of entries that
/// come down to a few numbers each. Called on the reading connection's thread, in the read's order.
public protocol StoredEntrySink: Sendable {
    func take(_ entry: StoredEntry)
}
