extension PatientFeed {
    /// Why a feed document may not go to `XMLParser`, or nil when it may. swift-corelibs-foundation's
    /// XMLParser takes down the whole process on two kinds of input that libxml2 passes on (both found by
    /// scripts/fuzz.sh), so they are refused first:
    /// - an element name that is not UTF-8 (a trap; libxml2 hands such names on from a document read as
    ///   UTF-8 or in an encoding it does not know, `encoding="UTF-%"`): the document must be valid UTF-8,
    ///   which is what RHEx servers send;
    /// - a processing instruction without data, `<?x?>` (a NULL pointer read): no processing instruction
    ///   is allowed but the XML declaration at the start.
    static func unsafeForXMLParser(_ bytes: [UInt8]) -> String? {
        guard String(validating: bytes, as: UTF8.self) != nil else { return "the document is not UTF-8 text" }
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        var i = start
        while i + 1 < bytes.count {
            if bytes[i] == UInt8(ascii: "<") && bytes[i + 1] == UInt8(ascii: "?") {
                let isDeclaration = i == start && bytes[(i + 2)...].starts(with: Array("xml".utf8))
                    && i + 5 < bytes.count && [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i + 5])
                if !isDeclaration { return "the document holds a processing instruction (<?…?>)" }
            }
            i += 1
        }
        return nil
    }
}
