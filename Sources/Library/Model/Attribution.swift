/// What must be shown with the publishers' content: the source line they ask for, the topic's own credit
/// line when it has one, and that the publisher does not endorse hreaderd (see Resources/library/README.md).
/// English, as the publishers word it; the string table has the same lines by key for other languages
/// (`library.source.medlineplus`, `library.source.cdc`, `library.disclaimer.*`).
public struct Attribution: Sendable, Equatable {
    public enum Publisher: String, Sendable {
        /// MedlinePlus, U.S. National Library of Medicine: the topics.
        case medlinePlus = "medlineplus"
        /// Centers for Disease Control and Prevention: the CVX vaccine codes.
        case cdc
    }

    public var publisher: Publisher
    /// "Source: MedlinePlus, National Library of Medicine" or "Source: CDC".
    public var source: String
    /// The topic's agency credit (`"NIH: National Cancer Institute"`), or nil.
    public var credit: String?
    /// That the publisher does not endorse hreaderd.
    public var disclaimer: String

    /// Every line to show, in order.
    public var lines: [String] { [source] + (credit.map { ["Credit: \($0)"] } ?? []) + [disclaimer] }

    public static func medlinePlus(credit: String?) -> Attribution {
        Attribution(publisher: .medlinePlus, source: "Source: MedlinePlus, National Library of Medicine", credit: credit,
                    disclaimer: "MedlinePlus and the National Library of Medicine do not endorse hreaderd.")
    }

    public static let cdc = Attribution(publisher: .cdc, source: "Source: CDC", credit: nil,
                                        disclaimer: "Use of CDC's vaccine codes does not imply endorsement of hreaderd by CDC.")
}
