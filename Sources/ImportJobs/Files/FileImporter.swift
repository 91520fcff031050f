import Records
import HealthRecord
import Store
import Synchronization

/// One file given to an import: its name (for the report), its media type when an upload said it,
/// and its bytes.
public struct ImportInputFile: Sendable {
    public var name: String
    public var mediaType: String?
    public var bytes: [UInt8]
    /// The file's row in `imported_files` when it is kept already (`reimport`).
    public var keptID: Int64?

    public init(name: String, mediaType: String? = nil, bytes: [UInt8], keptID: Int64? = nil) {
        self.name = name
        self.mediaType = mediaType
        self.bytes = bytes
        self.keptID = keptID
    }
}

/// Imports the files of one input (one file, or the files of one folder) into the store, whatever
/// their format: FHIR R4 JSON in any shape (read together, so references may cross files), or an RHEx
/// record. Each file is kept in the store with what it produced; each patient is one transaction, so a
/// patient that fails changes nothing and the others still import. Used by `import-file`, the web
/// app's upload and `reimport`.
public struct FileImporter: Sendable {
    public let store: Store
    public var fhirLimits: FHIRLimits
    public var recordParser: RecordParser

    /// A FHIR patient of this many resources or more is mapped as it is written (`StreamedFHIRImport`): the
    /// store starts writing as soon as the first batch is mapped, and the record is never held mapped whole.
    /// A resource that cannot be mapped is then found during the write, which it undoes (the patient's report
    /// says why), rather than while the input is read. A Synthea patient is a few thousand resources.
    public static let defaultMapsWhileWritingFrom = 10_000

    public var mapsWhileWritingFrom: Int

    public init(store: Store, fhirLimits: FHIRLimits = .standard, recordParser: RecordParser = RecordParser(),
                mapsWhileWritingFrom: Int = defaultMapsWhileWritingFrom) {
        self.store = store
        self.fhirLimits = fhirLimits
        self.recordParser = recordParser
        self.mapsWhileWritingFrom = mapsWhileWritingFrom
    }

    /// How far into a file `resourceType` is looked for: a bundle's first resource starts well within it.
    public static let formatProbeBytes = 64 << 10

    public enum Format: String, Sendable { case fhir, ccda, rhex }

    /// Told from the content: a CDA `ClinicalDocument` (C-CDA or C32), FHIR JSON (`resourceType`), else an
    /// RHEx record.
    public static func format(of bytes: [UInt8]) -> Format {
        let prefix = Array(bytes.prefix(formatProbeBytes))
        if CCDAReader.looksLikeCDA(prefix) { return .ccda }
        return FHIRInput.looksLikeFHIR(prefix) ? .fhir : .rhex
    }

    /// One patient of an input, as `apply` writes it.
    struct PlannedPatient: Sendable {
        var report: ImportReport.Patient
        var record: PatientRecord?
        var options: ImportOptions
        /// Entries mapped as they are written (a long FHIR record); `record` then holds none.
        var pending: FHIRPendingEntries?
    }

    /// An input read and mapped, not yet written: what `apply` writes, patient by patient.
    public struct Plan: Sendable {
        public var files: [ImportInputFile]
        /// Each file's hash and deflated bytes, made on another thread from the moment the file was given.
        /// (None for a file kept already: `reimport`.)
        var keptFiles: [BackgroundWork<Result<PreparedImportedFile, StoreError>>?]
        var report: ImportReport
        var readable: [Int]
        var patients: [PlannedPatient]

        /// Whether any patient of the input can be imported.
        public var importsSomething: Bool { patients.contains { $0.record != nil && $0.report.error == nil } }

        /// Why nothing of the input can be imported, in one line (for a `400`).
        public var whyNothing: String {
            var reasons = report.files.compactMap { file in file.error.map { "\(file.name): \($0)" } }
            reasons += patients.compactMap { patient in patient.report.error.map { "\(patient.report.reference): \($0)" } }
            reasons += report.problems
            return reasons.isEmpty ? "the input holds no patient's records" : reasons.prefix(3).joined(separator: "; ")
        }
    }

    /// Reads and maps the files of one input; nothing is written.
    public func plan(_ files: [ImportInputFile], options: ImportOptions = .merge) -> Plan {
        // Deflated while the files are read: a large file's compression is then not in the way of its write.
        let keptFiles = files.map { file in
            let bytes = file.bytes
            return file.keptID != nil ? nil : BackgroundWork(named: "file-deflate") { Result { () throws(StoreError) in try PreparedImportedFile(bytes) } }
        }
        var report = ImportReport()
        var fhirFiles: [FHIRInput.File] = []
        var records: [PatientRecord] = []
        var documents: [CCDAReader.Result] = []
        var readable: [Int] = []   // indexes into `files` of the files that were read
        for (index, file) in files.enumerated() {
            var entry = ImportReport.File(name: file.name, format: "", shape: "", bytes: file.bytes.count, resources: 0)
            switch Self.format(of: file.bytes) {
            case .fhir:
                entry.format = Format.fhir.rawValue
                do {
                    let read = try FHIRInput.read(file.bytes, name: file.name, limits: fhirLimits)
                    entry.shape = read.shape.rawValue
                    entry.resources = read.resources.count
                    fhirFiles.append(read)
                    readable.append(index)
                } catch {
                    entry.error = error.description
                }
            case .ccda:
                entry.format = Format.ccda.rawValue
                entry.shape = "document"
                do {
                    let document = try CCDAReader().read(file.bytes, name: file.name)
                    entry.resources = document.statements
                    documents.append(document)
                    readable.append(index)
                } catch {
                    entry.error = error.description
                }
            case .rhex:
                entry.format = Format.rhex.rawValue
                entry.shape = "record"
                do {
                    records.append(try recordParser.parse(file.bytes))
                    entry.resources = 1
                    readable.append(index)
                } catch {
                    entry.error = "neither FHIR R4 JSON (no resourceType) nor an RHEx record: \(error)"
                }
            }
            report.files.append(entry)
        }

        var patients: [PlannedPatient] = []
        if !fhirFiles.isEmpty {
            let read = FHIRReader(limits: fhirLimits, mapsWhileWritingFrom: mapsWhileWritingFrom).assemble(fhirFiles)
            report.unowned = read.unowned
            report.problems = read.problems
            if read.patients.isEmpty && read.resourceCount == 0 {
                report.problems.append("no resources to import (an empty bundle or file)")
            }
            for patient in read.patients {
                var entry = ImportReport.Patient(reference: patient.reference, name: patient.record?.name ?? "")
                entry.kept = patient.kept
                entry.enteredInError = patient.enteredInError
                entry.accounting = patient.accounting
                entry.warnings = patient.warnings
                entry.error = patient.error
                patients.append(PlannedPatient(report: entry, record: patient.record, options: options, pending: patient.pending))
            }
        }
        for document in documents {
            // A document is a summary at one time: it adds and updates, never removes (a newer one may say less).
            var report = ImportReport.Patient(reference: document.record.recordID, name: document.record.name)
            report.enteredInError = document.accounting.leftOut[ImportAccounting.LeftOut.enteredInError.rawValue] ?? 0
            report.accounting = document.accounting
            report.accountingUnit = "entries"
            report.warnings = document.narrativeOnly.map { "the section \($0) has narrative only: kept as text (documents.json, the export)" }
            report.warnings += document.warnings
            var ccdaOptions = options
            ccdaOptions.mode = .merge
            patients.append(PlannedPatient(report: report, record: document.record, options: ccdaOptions))
        }
        for record in records {
            // An RHEx record is the whole of that person's record: it replaces, as it always has.
            var rhexOptions = options
            rhexOptions.mode = .replace
            patients.append(PlannedPatient(report: ImportReport.Patient(reference: record.recordID, name: record.name), record: record,
                                           options: rhexOptions))
        }
        if options.patientID != nil, patients.count > 1 {
            for index in patients.indices where patients[index].report.error == nil {
                patients[index].report.error = "the input holds \(patients.count) people; --patient takes one person's records"
                patients[index].record = nil
            }
        }
        return Plan(files: files, keptFiles: keptFiles, report: report, readable: readable, patients: patients)
    }

    /// Why a patient was not written when the import was stopped (its task cancelled).
    public static let stoppedReason = "not imported: the import was stopped before this patient was written"

    /// Writes a plan: keeps its files, then imports each patient in a transaction of its own. `progress`
    /// is told (patients done, patients in all) as it goes. When the calling task is cancelled, the patient
    /// being written (a long FHIR record, written in batches) is undone, the ones not begun are left out
    /// (their report says so), and the files are kept only if some patient was written: as a crash would
    /// leave it, without the crash.
    public func apply(_ plan: Plan, sourceName: String = Source.filesSourceName,
                      progress: (@Sendable (Int, Int) async -> Void)? = nil) async -> ImportReport {
        var report = plan.report
        var patients = plan.patients
        // Keep the files first: what was imported is always in the store with its source. An input of
        // which nothing can be imported changes nothing, not even the list of kept files.
        var keptIDs: [Int64] = []
        var newlyKept: [Int64] = []
        do {
            var batch: Int64?
            for index in plan.importsSomething ? plan.readable : [] {
                let file = plan.files[index]
                if let id = file.keptID { keptIDs.append(id); continue }
                guard let preparing = plan.keptFiles[index] else { continue }
                let prepared = try await preparing.value.get()
                let kept = try await store.keepImportedFile(name: file.name, mediaType: file.mediaType, prepared: prepared, batch: batch)
                batch = batch ?? kept.batch
                keptIDs.append(kept.id)
                newlyKept.append(kept.id)
            }
        } catch {
            report.problems.append("the files could not be kept in the store, so nothing was imported: \(error)")
            report.patients = patients.map(\.report)
            return report
        }

        let total = patients.count
        for index in patients.indices {
            if let progress, index > 0 { await progress(index, total) }
            guard let record = patients[index].record, patients[index].report.error == nil else { continue }
            // Stopped (the daemon shuts down): the patients not begun are not written; the one being written
            // is undone with its transaction, below.
            guard !Task.isCancelled else {
                patients[index].report.error = Self.stoppedReason
                continue
            }
            do {
                let summary: ImportSummary
                if let pending = patients[index].pending {
                    let tally: FHIRPendingEntries.Tally
                    (summary, tally) = try await StreamedFHIRImport.run(record, pending: pending, store: store, sourceName: sourceName,
                                                                        options: patients[index].options)
                    patients[index].report.enteredInError += tally.enteredInError
                    patients[index].report.accounting = (patients[index].report.accounting ?? ImportAccounting()) + tally.accounting
                    patients[index].report.warnings += tally.notes.messages
                } else {
                    summary = try await store.importRecord(record, sourceName: sourceName, options: patients[index].options)
                }
                patients[index].report.id = summary.patientID
                patients[index].report.change = summary.patient
                if summary.entriesKeptNewer > 0 {
                    patients[index].report.warnings.append(
                        "\(summary.entriesKeptNewer) entries said otherwise by a newer document already imported were left as it says")
                }
                for type in EntryType.allCases {
                    let changes = summary.changes(of: type)
                    if changes.added + changes.updated + changes.unchanged + changes.removed > 0 {
                        patients[index].report.entries[type] = changes
                    }
                }
            } catch where Task.isCancelled {
                patients[index].report.error = Self.stoppedReason
                patients[index].report.kept = [:]
                patients[index].report.enteredInError = 0
                patients[index].report.accounting = nil
            } catch let error as FHIRError {
                // Found while the record was mapped and written: nothing of the patient was written.
                patients[index].report.error = error.description
                patients[index].report.kept = [:]
                patients[index].report.enteredInError = 0
                patients[index].report.accounting = nil
            } catch {
                patients[index].report.error = "cannot store: \(error)"
            }
        }
        if let progress { await progress(total, total) }
        report.patients = patients.map(\.report)
        // Nothing imported after all (a long record's resource found unreadable as it was written, the store
        // refusing every patient): the files kept for it go again, as if they had never been given.
        if !newlyKept.isEmpty, !patients.contains(where: { $0.record != nil && $0.report.error == nil }) {
            try? await store.forgetImportedFiles(ids: newlyKept)
            return report
        }
        let json = report.json
        for id in keptIDs {
            try? await store.setImportedFileReport(id: id, reportJSON: json)
        }
        return report
    }

    /// Reads, maps and writes one input.
    public func importFiles(_ files: [ImportInputFile], options: ImportOptions = .merge, sourceName: String = Source.filesSourceName,
                            progress: (@Sendable (Int, Int) async -> Void)? = nil) async -> ImportReport {
        let plan = plan(files, options: options)
        let report = await apply(plan, sourceName: sourceName, progress: progress)
        Self.letGo(consume plan)
        return report
    }

    /// Frees a written plan on a thread of its own: the resources of a large input take a while to free
    /// (100,000 FHIR resources about 0.1 s), which the report need not wait for. Then the memory they and the
    /// import held goes back to the system (`FreedMemory`).
    public static func letGo(_ plan: consuming Plan) {
        let written = PlanSlot(plan)
        DetachedThread.start(named: "import-freeing") {
            // Freed here, not when the work's closure is released after it: the memory given back includes it.
            _ = written.take()
            FreedMemory.giveBack()
        }
    }

    /// A plan handed from one owner to another (to an upload's job, to the thread that frees it): the one that
    /// takes it holds the last reference, and frees it where it chooses, not where the slot is released.
    public final class PlanSlot: Sendable {
        private let plan: Mutex<Plan?>
        public init(_ plan: consuming Plan) { self.plan = Mutex(plan) }
        public func take() -> Plan? { plan.withLock { $0.take() } }
    }
}
