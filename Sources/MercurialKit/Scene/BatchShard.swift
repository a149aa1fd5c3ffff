import FoundationEssentials

/// Which rows of a batch one process renders: shard K of N takes rows K, K + N,
/// K + 2N, … (1-based), so shards need no coordination and every row is in one.
///
/// `--shard K/N` names it; `--shard auto` (or `auto/N`) reads it from the scheduler
/// that started the process, each of which hands its task's index in its own
/// variables (`schemes`).
public struct BatchShard: Sendable, Equatable {
    /// K, 1-based.
    public var index: Int
    /// N.
    public var count: Int
    /// Where it came from: `--shard` or a scheme's variables (`SLURM_ARRAY_TASK_ID=3`), for messages.
    public var source: String

    public init(index: Int, count: Int, source: String = "--shard") {
        self.index = index
        self.count = count
        self.source = source
    }

    /// Whether row `row` (1-based) is this shard's.
    public func contains(_ row: Int) -> Bool { (row - 1) % count == index - 1 }

    /// How many of `rows` rows are this shard's.
    public func count(of rows: Int) -> Int { rows / count + (rows % count >= index ? 1 : 0) }

    /// A scheduler's variables: the task's index (and the first index, for Slurm) and
    /// the task count where it gives one.
    public struct Scheme: Sendable {
        public var name: String
        public var indexVariable: String
        /// 0 or 1: the index the first task gets (Slurm's is `SLURM_ARRAY_TASK_MIN`).
        public var firstIndex: Int
        public var countVariable: String?
        /// Slurm's first index and step (`--array=1-7:2`: 1 and 2).
        public var minimumVariable: String?
        public var stepVariable: String?
    }

    /// The schemes `auto` reads, in the order they are told in help.
    public static let schemes: [Scheme] = [
        Scheme(name: "Slurm job array", indexVariable: "SLURM_ARRAY_TASK_ID", firstIndex: 0,
               countVariable: "SLURM_ARRAY_TASK_COUNT", minimumVariable: "SLURM_ARRAY_TASK_MIN", stepVariable: "SLURM_ARRAY_TASK_STEP"),
        Scheme(name: "Kubernetes Indexed Job", indexVariable: "JOB_COMPLETION_INDEX", firstIndex: 0, countVariable: nil),
        Scheme(name: "AWS Batch array job", indexVariable: "AWS_BATCH_JOB_ARRAY_INDEX", firstIndex: 0, countVariable: "AWS_BATCH_JOB_ARRAY_SIZE"),
        Scheme(name: "Cloud Run job", indexVariable: "CLOUD_RUN_TASK_INDEX", firstIndex: 0, countVariable: "CLOUD_RUN_TASK_COUNT"),
        Scheme(name: "Google Batch", indexVariable: "BATCH_TASK_INDEX", firstIndex: 0, countVariable: "BATCH_TASK_COUNT"),
        Scheme(name: "GNU parallel", indexVariable: "PARALLEL_SEQ", firstIndex: 1, countVariable: nil),
    ]

    /// The most shards: more than any scheduler's array, few enough that K and N are plain numbers.
    public static let maximumCount = 10_000_000

    /// `--shard`'s argument: `K/N`, `auto` or `auto/N`, with the process's `environment`.
    public static func parse(_ argument: String, environment: [String: String]) throws(MercurialError) -> BatchShard {
        let parts = argument.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if parts.first == "auto" && parts.count <= 2 {
            var given: Int?
            if parts.count == 2 {
                guard let n = Int(parts[1]), (1...maximumCount).contains(n) else {
                    throw MercurialError("--shard '\(argument.escapedForTerminal)': N in auto/N must be a whole number from 1 to \(maximumCount), the number of tasks, e.g. --shard auto/4")
                }
                given = n
            }
            return try automatic(count: given, environment: environment)
        }
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), (1...maximumCount).contains(n), (1...n).contains(k) else {
            throw MercurialError("--shard '\(argument.escapedForTerminal)' is not a shard; give K/N with 1 ≤ K ≤ N (e.g. --shard 1/2), or auto to read it from the scheduler")
        }
        return BatchShard(index: k, count: n)
    }

    /// The shard the schedulers' variables in `environment` name; `count` is `auto/N`'s N.
    /// Several schedulers' variables (GNU parallel inside a Slurm task) must agree.
    static func automatic(count given: Int?, environment: [String: String]) throws(MercurialError) -> BatchShard {
        var tasks: [(scheme: Scheme, position: Int, count: Int?, source: String)] = []
        for scheme in schemes {
            guard let task = try scheme.task(environment) else { continue }
            if let count = task.count, let given, given != count, let variable = scheme.countVariable {
                throw MercurialError("--shard auto/\(given): \(variable)=\(count) says there are \(count) tasks (\(scheme.name)); give --shard auto alone, or the right count")
            }
            tasks.append((scheme, task.position, task.count, task.source))
        }
        guard let first = tasks.first else {
            let names = schemes.map(\.indexVariable).joined(separator: ", ")
            throw MercurialError("--shard auto: no scheduler's task index is set (\(names)); run it as an array task, or give --shard K/N")
        }
        let counted = tasks.first { $0.count != nil }
        for other in tasks.dropFirst() where other.position != first.position
            || (other.count != nil && counted?.count != nil && other.count != counted?.count) {
            throw MercurialError("--shard auto: \(first.source) makes this task number \(first.position + 1)\(first.count.map { " of \($0)" } ?? "") but \(other.source) makes it \(other.position + 1)\(other.count.map { " of \($0)" } ?? ""); unset one scheduler's variables or give --shard K/N")
        }
        guard let count = given ?? counted?.count else {
            throw MercurialError("--shard auto: \(first.source) gives the task's index but \(first.scheme.name) gives no task count; give it as --shard auto/N (N: the number of tasks\(first.scheme.countVariable.map { ", which \($0) would give" } ?? ""))")
        }
        guard (1...maximumCount).contains(count) else {
            throw MercurialError("--shard auto: \(count) tasks (\(first.scheme.name)) is not a count from 1 to \(maximumCount); give --shard K/N")
        }
        guard first.position < count else {
            throw MercurialError("--shard auto: \(first.source) makes this task number \(first.position + 1) of only \(count) (\(first.scheme.name)); give the array as a range with one step, from its first index, or give --shard K/N")
        }
        return BatchShard(index: first.position + 1, count: count, source: first.source)
    }
}

extension BatchShard.Scheme {
    /// The task this scheme's variables give: its 0-based position among the tasks, the
    /// count if the scheme gives one, and the variables, for messages; nil when its index is unset.
    func task(_ environment: [String: String]) throws(MercurialError) -> (position: Int, count: Int?, source: String)? {
        guard let raw = environment[indexVariable] else { return nil }
        func number(_ variable: String, _ text: String) throws(MercurialError) -> Int {
            guard let n = Int(text.trimmingWhitespace()), n >= 0, n <= BatchShard.maximumCount * 1000 else {
                throw MercurialError("--shard auto: \(variable)='\(text.escapedForTerminal)' is not a task number (\(name)); give --shard K/N instead")
            }
            return n
        }
        let id = try number(indexVariable, raw)
        var source = "\(indexVariable)=\(id)"
        var position = id - firstIndex
        if let minimumVariable, let text = environment[minimumVariable] {
            let minimum = try number(minimumVariable, text)
            var step = 1
            if let stepVariable, let text = environment[stepVariable] { step = try number(stepVariable, text) }
            guard step >= 1, id >= minimum, (id - minimum) % step == 0 else {
                throw MercurialError("--shard auto: \(source) is not \(minimumVariable) \(minimum) plus a multiple of the step \(step) (\(name)); give the array as a range with one step (--array=1-7:2), or give --shard K/N")
            }
            position = (id - minimum) / step
            source += ", \(minimumVariable)=\(minimum), step \(step)"
        }
        guard position >= 0 else {
            throw MercurialError("--shard auto: \(source) is below \(firstIndex), the first task's index (\(name)); give --shard K/N instead")
        }
        var count: Int?
        if let countVariable, let text = environment[countVariable] { count = try number(countVariable, text) }
        return (position, count, source)
    }
}
