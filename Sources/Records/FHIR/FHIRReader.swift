import HealthRecord

/// Reads FHIR R4 files (bundles, NDJSON, single resources, a Bulk Data export's files together) into
/// the patients they describe: each a `PatientRecord` ready for the store, with what was kept and not
/// shown, or the reason it cannot be imported. Parsing only: no network, no store.
public struct FHIRReader: Sendable {
    public var limits: FHIRLimits
    /// A patient of this many resources or more is not mapped by `assemble`: its `pending` entries are
    /// mapped as the store writes them. By default every patient is mapped whole.
    public var mapsWhileWritingFrom: Int

    public init(limits: FHIRLimits = .standard, mapsWhileWritingFrom: Int = .max) {
        self.limits = limits
        self.mapsWhileWritingFrom = mapsWhileWritingFrom
    }

    /// One patient of the input.
    public struct Patient: Sendable {
        /// Nil when `error` is set: nothing of this patient is imported.
        public var record: PatientRecord?
        /// How the report names the patient: `Patient/123`.
        public var reference: String
        /// Whether the input held the `Patient` resource (else the person is known only from references).
        public var hasPatientResource: Bool
        /// Entries by type.
        public var shown: [EntryType: Int] = [:]
        /// Resources kept with the patient but not shown, by resource type.
        public var kept: [String: Int] = [:]
        /// Resources left out because their source marks them entered in error.
        public var enteredInError = 0
        /// What became of each resource of a mapped type (and each given again): with `pending`, the
        /// resources mapped so far (the rest are in the import's `FHIRPendingEntries.Tally`).
        public var accounting = ImportAccounting()
        public var warnings: [String] = []
        public var error: String?
        /// The resources that become entries, when they are mapped as they are written: `record` then holds
        /// the person and the kept resources, no entries, and `shown` counts nothing yet.
        public var pending: FHIRPendingEntries?
    }

    /// What an input (one file, or the files of a folder) holds.
    public struct Result: Sendable {
        public var files: [FHIRInput.File]
        public var patients: [Patient]
        /// Resources that belong to no patient (organizations, practitioners, medications…) by type: kept
        /// in the stored file only.
        public var unowned: [String: Int]
        /// Lines or entries that could not be read, and resources given twice.
        public var problems: [String]
        public var resourceCount: Int { files.reduce(0) { $0 + $1.resources.count } }
    }

    /// Reads files that make one input. A file that cannot be read at all is thrown: for one file the
    /// import is refused; for a folder the caller reports it and reads the rest (`read(files:)`).
    public func read(_ bytes: [UInt8], name: String) throws(FHIRError) -> Result {
        assemble([try FHIRInput.read(bytes, name: name, limits: limits)])
    }

    /// Puts the files of one input together: references may cross files (Bulk Data). An input of more
    /// resources than `limits.maxResources` in all is not read: its result holds the files and a problem.
    public func assemble(_ files: [FHIRInput.File]) -> Result {
        var problems = files.flatMap(\.problems)
        let total = files.reduce(0) { $0 + $1.resources.count }
        guard total <= limits.maxResources else {
            problems.append("the input holds \(total) resources, over the limit of \(limits.maxResources) for one import")
            return Result(files: files, patients: [], unowned: [:], problems: problems)
        }
        // The same resource twice (two exports of one record in a folder, a repeated NDJSON line): the
        // later one wins, as a newer version would.
        var order: [FHIRResource] = []
        var position: [String: Int] = [:]
        var repeats: [String: Int] = [:]
        order.reserveCapacity(total)
        position.reserveCapacity(total)
        for file in files {
            for resource in file.resources {
                if let at = position[resource.key] {
                    order[at] = resource
                    repeats[resource.key, default: 0] += 1
                    problems.append("\(resource.origin): \(resource.key) is given again; the later one is imported")
                } else {
                    position[resource.key] = order.count
                    order.append(resource)
                }
            }
        }
        let index = FHIRResourceIndex(order, positions: position)
        var assembly = FHIRRecordAssembly(index: index, mapsWhileWritingFrom: mapsWhileWritingFrom, repeats: repeats)
        let patients = assembly.patients()
        return Result(files: files, patients: patients, unowned: assembly.unowned, problems: problems)
    }
}
