import FoundationEssentials
import HTTPKit
import HealthRecord
import Records
import Store

/// The record handed to a doctor: `GET /patients/{pid}/ips.json` (an International Patient Summary, a FHIR
/// document Bundle) and `GET /patients/{pid}/ccda.xml` (a C-CDA R2.1 CCD). `?sections=` names the sections
/// beside the required ones, `?since=` limits results and vital signs to a period.
struct ShareRoutes {
    let app: TimelineApp

    enum Format: String, Sendable {
        case ips, ccda

        var contentType: String { self == .ips ? "application/fhir+json; charset=utf-8" : "application/xml; charset=utf-8" }
        var fileExtension: String { self == .ips ? "ips.json" : "ccda.xml" }
    }

    func register(in router: inout Router) {
        router.get("/patients/{pid}/ips.json") { request, context in
            try await share(request, patientID: try context.parameters.require("pid"), as: .ips)
        }
        router.get("/patients/{pid}/ccda.xml") { request, context in
            try await share(request, patientID: try context.parameters.require("pid"), as: .ccda)
        }
    }

    func share(_ request: Request, patientID: String, as format: Format) async throws -> Response {
        let options = try Self.options(request, calendar: app.configuration.calendar, now: app.now())
        guard let record = try await app.store().sharedRecord(patientID: patientID) else { throw APIError.unknownPatient }
        let bytes = Self.document(record, options: options, format: format)
        var response = Response(status: .ok, headers: ["Content-Type": format.contentType, "Cache-Control": "no-store"],
                                body: .bytes(ByteBuffer(bytes: bytes)))
        // The id is ours (p_ and hex), safe in a header.
        let name = patientID.filter { $0.isLetter || $0.isNumber || $0 == "_" }
        response.headers.replaceOrAdd(name: "Content-Disposition", value: "attachment; filename=\"hreaderd-\(name).\(format.fileExtension)\"")
        return response
    }

    static func document(_ record: SharedRecord, options: SharingOptions, format: Format) -> [UInt8] {
        switch format {
        case .ips: return IPSWriter.write(record, options: options)
        case .ccda: return CCDWriter.write(record, options: options)
        }
    }

    /// `?sections=a,b` (unknown name: 400) and `?since=` (a day, an RFC 3339 time or epoch seconds: 400 otherwise).
    static func options(_ request: Request, calendar: Calendar, now: Int64) throws(HTTPError) -> SharingOptions {
        var sections = SharedSection.allCases
        if let text = request.query["sections"] {
            switch SharedSection.parseList(text) {
            case .success(let chosen): sections = chosen
            case .failure(let unknown):
                throw HTTPError(.badRequest, code: "bad_sections",
                                message: "There is no section \(unknown.name); the sections are "
                                    + SharedSection.allCases.map(\.name).joined(separator: ", ") + ".")
            }
        }
        var since: Int64?
        if let text = request.query["since"] {
            guard let time = WindowEnd.parse(text, calendar: calendar, dayStart: true) else {
                throw HTTPError(.badRequest, code: "bad_since", message: "since takes a day (YYYY-MM-DD), an RFC 3339 time or epoch seconds.")
            }
            since = time
        }
        return SharingOptions(sections: sections, since: since, now: now)
    }
}
