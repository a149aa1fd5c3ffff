/// The environments schedulers start array tasks with, for `batch --shard auto`'s tests.
package enum SchedulerTasks {
    /// Three tasks as each scheduler starts them: the environments of tasks 1, 2 and 3.
    package static let schemes: [(name: String, argument: String, tasks: [[String: String]])] = [
        ("Slurm --array=1-5:2", "auto", [1, 3, 5].map {
            ["SLURM_ARRAY_TASK_ID": "\($0)", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "1",
             "SLURM_ARRAY_TASK_MAX": "5", "SLURM_ARRAY_TASK_STEP": "2", "SLURM_JOB_ID": "7"]
        }),
        ("Slurm --array=0-2", "auto", (0...2).map {
            ["SLURM_ARRAY_TASK_ID": "\($0)", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_STEP": "1"]
        }),
        ("Kubernetes", "auto/3", (0...2).map { ["JOB_COMPLETION_INDEX": "\($0)"] }),
        ("AWS Batch with its size", "auto", (0...2).map { ["AWS_BATCH_JOB_ARRAY_INDEX": "\($0)", "AWS_BATCH_JOB_ARRAY_SIZE": "3",
                                                            "AWS_BATCH_JOB_ATTEMPT": "2"] }),
        ("AWS Batch", "auto/3", (0...2).map { ["AWS_BATCH_JOB_ARRAY_INDEX": "\($0)"] }),
        ("Cloud Run", "auto", (0...2).map { ["CLOUD_RUN_TASK_INDEX": "\($0)", "CLOUD_RUN_TASK_COUNT": "3"] }),
        ("Google Batch", "auto", (0...2).map { ["BATCH_TASK_INDEX": "\($0)", "BATCH_TASK_COUNT": "3"] }),
        ("GNU parallel", "auto/3", (1...3).map { ["PARALLEL_SEQ": "\($0)", "PARALLEL_PID": "99"] }),
    ]
}
