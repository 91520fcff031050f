import Foundation
@_exported import TestSupport
import HealthRecord
@testable import Store

let fastScrypt = TestStore.fastScrypt

func makeStore(in dir: TemporaryDirectory, password: String = "correct horse") throws -> (Store, RecoveryKey, StateDirectory) {
    let state = StateDirectory(path: dir.file("state"))
    let (store, recovery) = try TestStore.create(at: state.path, password: password)
    return (store, recovery, state)
}
