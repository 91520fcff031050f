/// Finds the resource a reference points to, within what one import read: `urn:uuid:…` (a bundle's
/// `fullUrl`), `Type/id`, an absolute URL ending in `Type/id` (with or without `_history/n`), and `#id`
/// for a resource `contained` in the one that refers to it. Nothing is ever fetched.
struct FHIRResourceIndex {
    private(set) var resources: [FHIRResource] = []
    /// Every resource by its key; only those with an id are found by it (`Type/id`).
    private let byKey: [String: Int]
    private var byFullUrl: [String: Int] = [:]

    /// `positions`: each resource's index in `resources` by its key, as the input's reading made them (one
    /// resource a key).
    init(_ resources: [FHIRResource], positions: [String: Int]) {
        self.resources = resources
        byKey = positions
        byFullUrl.reserveCapacity(resources.count)
        for (index, resource) in resources.enumerated() {
            if let fullUrl = resource.fullUrl { byFullUrl[fullUrl] = index }
        }
    }

    private func withID(_ index: Int?) -> Int? {
        guard let index, resources[index].id != nil else { return nil }
        return index
    }

    /// The resource `reference` names, seen from `resource` (for `#id`); nil when it is not in the input.
    func resolve(_ reference: String, from resource: FHIRResource? = nil) -> FHIRResource? {
        if reference.hasPrefix("#") {
            return resource.flatMap { contained(String(reference.dropFirst()), in: $0) }
        }
        if let index = byFullUrl[reference] ?? withID(byKey[reference]) { return resources[index] }
        if let key = Self.typeAndID(reference), let index = withID(byKey[key]) { return resources[index] }
        return nil
    }

    /// `Type/id` of a relative or absolute reference: its last two path segments, less `_history/n`.
    static func typeAndID(_ reference: String) -> String? {
        var segments = reference.split(separator: "/", omittingEmptySubsequences: true)
        if segments.count >= 4, segments[segments.count - 2] == "_history" { segments.removeLast(2) }
        guard segments.count >= 2, let first = segments[segments.count - 2].first, first.isUppercase else { return nil }
        return segments[segments.count - 2] + "/" + segments[segments.count - 1]
    }

    private func contained(_ id: String, in resource: FHIRResource) -> FHIRResource? {
        let element = resource.element
        let tape = element.tape
        guard let list = tape.member("contained", of: element.node), tape.nodes[list].kind == .array else { return nil }
        for value in tape.elements(of: list) {
            guard tape.nodes[value].kind == .object,
                  let type = tape.member("resourceType", of: value), tape.nodes[type].kind == .string,
                  let containedID = tape.member("id", of: value), tape.nodes[containedID].kind == .string,
                  tape.string(at: containedID, equals: id) else { continue }
            return FHIRResource(type: tape.string(at: type), id: id, fullUrl: nil, tape: tape, node: value, raw: "{}",
                                place: .contained(in: resource.key, id: id))
        }
        return nil
    }
}
