import ImportJobs
import ServiceLifecycle

/// The job runner (syncs of RHEx and FHIR sources, periodic and asked for) as a service: it claims and runs
/// jobs until the daemon shuts down; then running jobs are cut short and queued again, to resume at the
/// next start (`JobRunner.stop`).
struct ImportJobsService: Service {
    let runner: JobRunner

    func run() async {
        await runner.start()
        try? await gracefulShutdown()
        await runner.stop()
    }
}
