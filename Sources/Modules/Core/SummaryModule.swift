import HealthRecord

/// One tile of the summary (hReader's applets, SelfHub's modules): what it reads from the record and the
/// person's own readings, the values it offers to other modules, its tile and its message. A module lives
/// in its own folder and knows no other module; it reaches another's values only through `SharedValues`,
/// by the keys it `needs`. The catalog (`ModuleCatalog`) is the one list that names them all.
public protocol SummaryModule: Sendable {
    /// Stable, in URLs and in each patient's list: lower case words joined by `-`.
    var id: String { get }
    var name: String { get }
    /// One sentence: what the module shows.
    var about: String { get }
    /// What the summary must read for it.
    var reads: ModuleReads { get }
    /// The kinds of reading a person can add from its tile.
    var accepts: [Reading.Kind] { get }
    /// The keys of the values it gives to modules evaluated after it (`"weight-bmi.height"`).
    var offers: [String] { get }
    /// The keys of other modules' values it uses; those modules are evaluated first, shown or not.
    var needs: [String] { get }
    /// Whether a patient of this age (in years; nil when the birth date is unknown) sees it without choosing.
    func shownByDefault(age: Double?) -> Bool
    func evaluate(_ record: ModuleRecord, shared: SharedValues) -> ModuleOutput
}

extension SummaryModule {
    public var accepts: [Reading.Kind] { [] }
    public var offers: [String] { [] }
    public var needs: [String] { [] }
    public func shownByDefault(age: Double?) -> Bool { true }
}

/// What a module reads: entry types of the record, the person's readings, their posts.
public struct ModuleReads: Sendable, Equatable {
    /// Entry types the module reads as entries (`ModuleRecord.entries`).
    public var entryTypes: Set<EntryType>
    /// Whether it reads the record's measurements (`ModuleRecord.measurements`: vital signs and results, as
    /// numbers by measure): those entries are then not held, only their measurements.
    public var measures: Bool
    public var readings: Bool
    public var posts: Bool

    public init(entryTypes: Set<EntryType> = [], measures: Bool = false, readings: Bool = false, posts: Bool = false) {
        self.entryTypes = entryTypes
        self.measures = measures
        self.readings = readings
        self.posts = posts
    }

    public func union(_ other: ModuleReads) -> ModuleReads {
        ModuleReads(entryTypes: entryTypes.union(other.entryTypes), measures: measures || other.measures,
                    readings: readings || other.readings, posts: posts || other.posts)
    }
}

/// What a module says: a short message (what it saw; where a range is reached, a suggestion to talk to a
/// clinician naming the guideline), its tile, and the values it offers.
public struct ModuleOutput: Sendable, Equatable {
    public var message: String
    public var tile: TileValue
    public var offered: [String: Double]

    public init(message: String, tile: TileValue, offered: [String: Double] = [:]) {
        self.message = message
        self.tile = tile
        self.offered = offered
    }
}

/// Values modules give each other, by key (`"<module id>.<name>"`).
public struct SharedValues: Sendable, Equatable {
    public private(set) var values: [String: Double] = [:]
    public init(_ values: [String: Double] = [:]) { self.values = values }
    public subscript(key: String) -> Double? { values[key] }
    mutating func merge(_ offered: [String: Double]) { values.merge(offered) { _, new in new } }
}
