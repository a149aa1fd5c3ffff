import MercurialTestSupport
import Testing
@testable import MercurialKit

/// `--shard auto`: each scheduler's variables name one shard, and the tasks of an
/// array take every row once.
struct BatchShardTests {
    @Test(arguments: SchedulerTasks.schemes.indices)
    func threeTasksTakeEveryOneOf300RowsOnce(_ i: Int) throws {
        let scheme = SchedulerTasks.schemes[i]
        let shards = try scheme.tasks.map { environment throws(MercurialError) in
            try BatchShard.parse(scheme.argument, environment: environment)
        }
        #expect(shards.map(\.index) == [1, 2, 3] && shards.allSatisfy { $0.count == 3 }, "\(scheme.name): \(shards)")
        var taken = [Int](repeating: 0, count: 301)
        for shard in shards { for row in 1...300 where shard.contains(row) { taken[row] += 1 } }
        #expect(taken.dropFirst().allSatisfy { $0 == 1 }, "\(scheme.name)")
        #expect(shards.map { $0.count(of: 300) } == [100, 100, 100])
        #expect(shards.allSatisfy { $0.source.contains("=") }, "the source names the variable: \(shards.map(\.source))")
    }

    @Test func kOfNIsReadAsBeforeAndIgnoresTheEnvironment() throws {
        let shard = try BatchShard.parse("2/3", environment: ["SLURM_ARRAY_TASK_ID": "9"])
        #expect(shard == BatchShard(index: 2, count: 3))
        #expect((1...7).filter(shard.contains) == [2, 5])
        #expect(shard.count(of: 7) == 2)
    }

    /// Two schedulers' variables that agree (GNU parallel run inside a Slurm task, each
    /// numbering it the same) are one shard; that disagree, an error naming both.
    @Test func twoSchemesMustAgree() throws {
        let agreeing = try BatchShard.parse("auto", environment: ["CLOUD_RUN_TASK_INDEX": "1", "CLOUD_RUN_TASK_COUNT": "4",
                                                                   "BATCH_TASK_INDEX": "1", "BATCH_TASK_COUNT": "4"])
        #expect(agreeing.index == 2 && agreeing.count == 4)
        let error = #expect(throws: MercurialError.self) {
            try BatchShard.parse("auto", environment: ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "3",
                                                       "SLURM_ARRAY_TASK_MIN": "0", "PARALLEL_SEQ": "1"])
        }
        #expect(error?.message.contains("SLURM_ARRAY_TASK_ID=2") == true && error?.message.contains("PARALLEL_SEQ=1") == true,
                "\(String(describing: error))")
    }

    @Test(arguments: [
        ("auto", [:], "no scheduler's task index is set"),
        ("auto", ["JOB_COMPLETION_INDEX": "0"], "gives no task count; give it as --shard auto/N"),
        ("auto/2", ["JOB_COMPLETION_INDEX": "2"], "makes this task number 3 of only 2"),
        ("auto", ["CLOUD_RUN_TASK_INDEX": "3", "CLOUD_RUN_TASK_COUNT": "3"], "makes this task number 4 of only 3"),
        ("auto/4", ["BATCH_TASK_INDEX": "0", "BATCH_TASK_COUNT": "3"], "BATCH_TASK_COUNT=3 says there are 3 tasks"),
        // --array=1,3,10: 10 is no step from the first index that three tasks reach.
        ("auto", ["SLURM_ARRAY_TASK_ID": "10", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_STEP": "1"],
         "makes this task number 10 of only 3"),
        ("auto", ["SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_STEP": "2"],
         "is not SLURM_ARRAY_TASK_MIN 1 plus a multiple of the step 2"),
        ("auto", ["PARALLEL_SEQ": "0"], "is below 1, the first task's index"),
        ("auto/3", ["PARALLEL_SEQ": "x1"], "PARALLEL_SEQ='x1' is not a task number"),
        ("auto", ["AWS_BATCH_JOB_ARRAY_INDEX": "-1", "AWS_BATCH_JOB_ARRAY_SIZE": "2"], "is not a task number"),
        ("auto/0", ["PARALLEL_SEQ": "1"], "N in auto/N must be a whole number"),
        ("auto/x", ["PARALLEL_SEQ": "1"], "N in auto/N must be a whole number"),
        ("auto/3/1", ["PARALLEL_SEQ": "1"], "is not a shard"),
        ("3/2", [:], "is not a shard; give K/N"),
        ("0/2", [:], "is not a shard; give K/N"),
        ("1/99999999999", [:], "is not a shard; give K/N"),
    ] as [(String, [String: String], String)])
    func aShardThatCannotBeIsRefused(_ argument: String, _ environment: [String: String], _ message: String) {
        let error = #expect(throws: MercurialError.self) { try BatchShard.parse(argument, environment: environment) }
        #expect(error?.message.contains(message) == true, "\(argument) \(environment): \(String(describing: error))")
        #expect(error?.message.hasPrefix("--shard") == true)
    }
}
