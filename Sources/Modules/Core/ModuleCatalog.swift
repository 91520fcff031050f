import HealthRecord

/// The modules the daemon knows, in their default order: the one list that names them all. A new module
/// is a folder of its own and one line here; a test adds its own by building a catalog with it.
public struct ModuleCatalog: Sendable {
    public let modules: [any SummaryModule]

    public init(_ modules: [any SummaryModule]) { self.modules = modules }

    public static let standard = ModuleCatalog([
        ProblemsAllergiesModule(),
        MedicationsModule(),
        BloodPressureModule(),
        WeightBMIModule(),
        BloodSugarModule(),
        CholesterolModule(),
        ImmunizationsModule(),
        FeelingsModule(),
    ])

    public func module(_ id: String) -> (any SummaryModule)? { modules.first { $0.id == id } }

    /// The ids a patient of this age sees without choosing, in the catalog's order.
    public func defaults(age: Double?) -> [String] { modules.filter { $0.shownByDefault(age: age) }.map(\.id) }

    public enum ChoiceError: Error, Equatable, Sendable {
        case unknown(String)
        case repeated(String)
    }

    /// A person's list, checked: every id known, none twice.
    public func validate(_ ids: [String]) -> Result<[String], ChoiceError> {
        var seen: Set<String> = []
        for id in ids {
            guard module(id) != nil else { return .failure(.unknown(id)) }
            guard seen.insert(id).inserted else { return .failure(.repeated(id)) }
        }
        return .success(ids)
    }

    /// The modules `ids` shows and every module they need values from, in the order to evaluate them:
    /// a module after the ones whose values it needs.
    public func evaluationOrder(_ ids: [String]) -> [any SummaryModule] {
        var order: [any SummaryModule] = []
        var placed: Set<String> = []
        var visiting: Set<String> = []
        func place(_ module: any SummaryModule) {
            guard !placed.contains(module.id), visiting.insert(module.id).inserted else { return }
            for key in module.needs {
                if let provider = modules.first(where: { $0.offers.contains(key) }) { place(provider) }
            }
            visiting.remove(module.id)
            placed.insert(module.id)
            order.append(module)
        }
        for id in ids { if let module = module(id) { place(module) } }
        return order
    }

    /// What the modules `ids` need read, together.
    public func reads(_ ids: [String]) -> ModuleReads {
        evaluationOrder(ids).reduce(ModuleReads()) { $0.union($1.reads) }
    }

    /// Each shown module's output, in the order of `ids`.
    public func evaluate(_ ids: [String], record: ModuleRecord) -> [(module: any SummaryModule, output: ModuleOutput)] {
        var shared = SharedValues()
        var outputs: [String: ModuleOutput] = [:]
        for module in evaluationOrder(ids) {
            let output = module.evaluate(record, shared: shared)
            shared.merge(output.offered)
            outputs[module.id] = output
        }
        return ids.compactMap { id in
            guard let module = module(id), let output = outputs[id] else { return nil }
            return (module, output)
        }
    }
}
