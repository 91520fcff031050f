import HealthRecord

/// The resources of one patient that become entries, mapped a batch at a time as the store writes them
/// (a long record: `FHIRReader.mapsWhileWritingFrom`), instead of all before the first is written. The
/// mapping is the one `assemble` does (`FHIREntryMapping`), over the same index of the input.
public struct FHIRPendingEntries: Sendable {
    let members: [FHIRResource]
    let index: FHIRResourceIndex

    /// Resources to map.
    public var count: Int { members.count }

    /// What the mapped resources gave that the store's summary does not count, added up batch by batch for
    /// the report. (The entries shown are counted by the store as it writes them.)
    public struct Tally: Sendable, Equatable {
        public var enteredInError = 0
        /// What became of each resource mapped.
        public var accounting = ImportAccounting()
        /// What was imported only in part: the report's warnings.
        public var notes = FHIRMappingNotes()
        public init() {}
    }

    /// The entries of the resources at `range` (positions `0..<count`). Throws the first resource that
    /// cannot be mapped, as `FHIRError`: nothing of the patient may then be imported.
    public func entries(_ range: Range<Int>, tally: inout Tally) throws(FHIRError) -> [Entry] {
        let mapping = FHIREntryMapping(index: index)
        var out: [Entry] = []
        out.reserveCapacity(range.count)
        for resource in members[range] {
            let mapped: FHIRMapped
            do { mapped = try mapping.map(resource, notes: &tally.notes) } catch let error as FHIRError { throw error } catch {
                throw .notFHIR(FHIRInput.describe(error))
            }
            tally.accounting.account(mapped)
            switch mapped {
            case let .entries(entries):
                out.append(contentsOf: entries)
            case .enteredInError:
                tally.enteredInError += 1
            case .kept:
                // Only types that are mapped are pending; a kept one would be the assembly's mistake.
                break
            }
        }
        return out
    }
}
