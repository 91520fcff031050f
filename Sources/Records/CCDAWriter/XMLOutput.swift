/// A small XML writer for the CCD: elements with attributes, text escaped (`MarkupText`), indented two
/// spaces a level so that a person can read the document.
struct XMLOutput {
    private(set) var bytes: [UInt8]
    private var open: [String] = []

    init(capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    private mutating func indent() {
        bytes.append(0x0a)
        bytes.append(contentsOf: repeatElement(0x20, count: open.count * 2))
    }

    private mutating func start(_ name: String, _ attributes: [(String, String?)]) {
        indent()
        bytes.append(UInt8(ascii: "<"))
        bytes.append(contentsOf: name.utf8)
        for (key, value) in attributes {
            guard let value else { continue }
            bytes.append(0x20)
            bytes.append(contentsOf: key.utf8)
            bytes.append(contentsOf: "=\"".utf8)
            MarkupText.append(value, to: &bytes)
            bytes.append(UInt8(ascii: "\""))
        }
    }

    mutating func raw(_ text: String) { bytes.append(contentsOf: text.utf8) }

    /// `<name a="…">`, closed by `close()`.
    mutating func open(_ name: String, _ attributes: [(String, String?)] = []) {
        start(name, attributes)
        bytes.append(UInt8(ascii: ">"))
        open.append(name)
    }

    mutating func close() {
        let name = open.removeLast()
        indent()
        bytes.append(contentsOf: "</".utf8)
        bytes.append(contentsOf: name.utf8)
        bytes.append(UInt8(ascii: ">"))
    }

    /// `<name a="…"/>`.
    mutating func empty(_ name: String, _ attributes: [(String, String?)] = []) {
        start(name, attributes)
        bytes.append(contentsOf: "/>".utf8)
    }

    /// `<name a="…">text</name>`, the text escaped.
    mutating func text(_ name: String, _ text: String, _ attributes: [(String, String?)] = []) {
        start(name, attributes)
        bytes.append(UInt8(ascii: ">"))
        MarkupText.append(text, to: &bytes)
        bytes.append(contentsOf: "</".utf8)
        bytes.append(contentsOf: name.utf8)
        bytes.append(UInt8(ascii: ">"))
    }
}
