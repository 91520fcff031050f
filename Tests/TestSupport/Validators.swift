import Foundation
import Testing

/// The offline validators in `../shared/` (`ips-validator`, `ccda-validator`), run as processes on a written
/// document. The IPS validator's model check needs fhir.resources in `.build/ips-venv`
/// (`scripts/install-validators.sh`, which the test command runs first); the C-CDA one Debian's python3-lxml.
public enum SharedValidators {
    public static let ips = SharedSampleFolder(name: "ips-validator", environmentOverride: "HREADERD_IPS_VALIDATOR")
    public static let ccda = SharedSampleFolder(name: "ccda-validator", environmentOverride: "HREADERD_CCDA_VALIDATOR")

    /// `<repo>/.build/ips-venv/bin/python`.
    public static let venvPython: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".build/ips-venv/bin/python").path

    /// The IPS validator's verdict on a written Bundle (`--strict-references`): exit status and report.
    public static func validateIPS(_ path: String) throws -> (passed: Bool, report: String) {
        guard FileManager.default.isExecutableFile(atPath: venvPython) else {
            return (false, "\(venvPython) is missing: run scripts/install-validators.sh (the test command does)")
        }
        let result = try run(venvPython, [ips.path("validate_ips.py"), "--strict-references", path])
        return (result.status == 0, result.out + result.err)
    }

    /// The C-CDA validator's verdict (errors only; warnings are SHOULDs).
    public static func validateCCDA(_ path: String) throws -> (passed: Bool, report: String) {
        let result = try run("/usr/bin/python3", [ccda.path("validate.py"), "--no-warnings", "--max-messages", "20", path])
        return (result.status == 0, result.out + result.err)
    }
}
