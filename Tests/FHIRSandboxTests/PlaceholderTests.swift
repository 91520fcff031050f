import Testing
@testable import FHIRSandbox

@Suite struct FHIRSandboxPlaceholderTests {}
