import FoundationEssentials
import ImportJobs
import Records

/// A FHIR search or `$everything` read to its end: each page a searchset `Bundle`, followed by its
/// `link[relation=next]`, which must stay on the same server; at most `maximumPages`, and a link seen
/// twice ends the walk (a server that loops).
struct FHIRPages: Sendable {
    let api: FHIRAPI
    let server: FHIRServerURL
    let limits: FHIRLimits
    let pageBytes: Int
    /// 10,000 pages of even 50 resources is 500,000 resources: more than a person's record.
    static let maximumPages = 10_000

    struct Read: Sendable {
        var files: [FHIRInput.File] = []
        /// The first page's `meta.lastUpdated`: the server's time when the search ran.
        var serverTime: String?
        var pages = 0
        var resources = 0
    }

    func read(_ first: URL, name: String) async throws(SyncError) -> Read {
        var read = Read()
        var next: URL? = first
        var seen: Set<String> = []
        while let url = next {
            guard seen.insert(url.absoluteString).inserted else { break }
            guard read.pages < Self.maximumPages else {
                throw .configuration("\(server.text) sent more than \(Self.maximumPages) pages for \(name)")
            }
            let answer = try await api.get(url, limit: pageBytes)
            read.pages += 1
            let page: FHIRInput.File
            do { page = try FHIRInput.read(answer.body, name: "\(name), page \(read.pages)", limits: limits) } catch {
                throw .badRecord(recordID: name, reason: "page \(read.pages) of \(HTTPFetcher.display(url)) is not FHIR JSON: \(error)")
            }
            read.resources += page.resources.count
            read.files.append(page)
            let links = Self.bundleLinks(answer.body)
            if read.pages == 1 { read.serverTime = links.lastUpdated }
            next = nil
            if let link = links.next {
                guard let url = URL(string: link), server.contains(url) else {
                    throw .configuration("\(server.text) sent a next page on another server (\(link.prefix(80))); it was not followed")
                }
                next = url
            }
        }
        return read
    }

    /// A Bundle's `link[relation=next].url` and `meta.lastUpdated`.
    static func bundleLinks(_ body: [UInt8]) -> (next: String?, lastUpdated: String?) {
        guard let document = JSONReading.parse(body, limit: body.count + 1), document.path("resourceType")?.text == "Bundle" else {
            return (nil, nil)
        }
        let next = document.path("link")?.array.first { $0.path("relation")?.text == "next" }?.path("url")?.text
        return (next, document.path("meta", "lastUpdated")?.text)
    }
}
