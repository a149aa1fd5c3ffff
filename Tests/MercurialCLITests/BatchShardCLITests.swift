import Foundation
import Testing
@testable import MercurialKit
#if canImport(Glibc)
import Glibc
import MercurialTestSupport
#endif

/// Issue 35: a batch split by any scheduler, run twice or killed and run again, ends
/// with every row's title once, whole and the same as a clean run's.
@Suite(.serialized) struct BatchShardCLITests {
    static let deadline: Duration = .seconds(300)

    /// `rows` titles (small ones take a few milliseconds each, so 300 cost little).
    static func csv(_ rows: Int, size: Int = 12) -> String {
        "text,size,light1.hue\n" + (1...rows).map { "Row \($0),\(size),\(Double($0 % 10) / 10)" }.joined(separator: "\n") + "\n"
    }

    /// The PNG titles in `folder`, by name, with their bytes.
    static func titles(in folder: URL) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".png") {
            out[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return out
    }

    /// The manifest's lines, each checked to be a whole JSON object.
    static func manifest(_ url: URL) throws -> [[String: Any]] {
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.hasSuffix("\n"), "the manifest ends with a whole line")
        return try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
    }

    /// A clean run's titles over `rows` rows, made once for the suite's comparisons.
    static func cleanRun(_ rows: Int, size: Int = 12, in dir: URL) async throws -> [String: Data] {
        try Data(csv(rows, size: size).utf8).write(to: dir.appendingPathComponent("clean.csv"))
        let r = try await CLI.run(["batch", "clean.csv", "-o", "clean", "--name", "{row}", "-q"], in: dir, timeout: deadline)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r)")
        return try titles(in: dir.appendingPathComponent("clean"))
    }

    /// For each scheduler's variables, three tasks started at once over 300 rows, into one
    /// folder and one manifest: 300 files, each row written once, as a clean run writes them.
    @Test func eachSchedulersThreeTasksWriteEveryRowOnce() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let clean = try await Self.cleanRun(300, in: dir)
            #expect(clean.count == 300)
            try Data(Self.csv(300).utf8).write(to: dir.appendingPathComponent("t.csv"))
            for (i, scheme) in SchedulerTasks.schemes.enumerated() {
                let out = "out\(i)"
                let runs = try await withThrowingTaskGroup(of: CLI.Result.self) { group in
                    for environment in scheme.tasks {
                        group.addTask {
                            try await CLI.run(["batch", "t.csv", "--shard", scheme.argument, "-o", out, "--name", "{row}",
                                               "--manifest", "m\(i).jsonl"],
                                              in: dir, environment: environment.mapValues { Optional($0) }, timeout: Self.deadline)
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                for r in runs {
                    #expect(r.status == 0 && r.stderr.isEmpty && r.stdout.contains(": 100 titles in"), "\(scheme.name): \(r)")
                    #expect(r.stdout.contains("(shard "), "the summary names the shard: \(r)")
                }
                let written = try Self.titles(in: dir.appendingPathComponent(out))
                #expect(written == clean, "\(scheme.name): \(written.count) files, \(written.filter { clean[$0.key] != $0.value }.count) differ")
                let lines = try Self.manifest(dir.appendingPathComponent("m\(i).jsonl"))
                let rows = lines.compactMap { $0["row"] as? Int }
                #expect(rows.count == 300 && Set(rows) == Set(1...300), "\(scheme.name): each row once in the manifest")
                #expect(lines.allSatisfy { $0["status"] as? String == "written" })
            }
        }
    }

    /// A 300-row batch killed with SIGKILL once titles appear, then run again with
    /// `--skip-existing` and stopped by SIGTERM (75), then run to the end: 300 titles
    /// identical to a clean run's, the reruns skipping what was done, no temporary file
    /// left, and a manifest whose every line is whole.
    @Test func aKilledBatchResumesToTheCleanRunsBytes() async throws {
        try await CLI.withTemporaryDirectory { dir in
            // Large enough titles (about 3 s for the 300 on two quiet cores) for the kill to land mid-way.
            let clean = try await Self.cleanRun(300, size: 240, in: dir)
            try Data(Self.csv(300, size: 240).utf8).write(to: dir.appendingPathComponent("t.csv"))
            let batch = #""$M" batch t.csv -o out --name '{row}' --manifest m.jsonl"#
            // Named temporaries (as on NFS, which has no O_TMPFILE): a kill leaves one, which the rerun removes.
            // The kill comes after 1 s and 20 titles; the SIGTERM once 20 more are written.
            func stopped(_ signal: String, extra: String = "", sleep: String) -> String {
                """
                export MERCURIAL_NO_TMPFILE=1
                count() { ls out 2>/dev/null | grep -c 'png$'; }
                start=$(count)
                \(batch) \(extra) -q 2>err.txt & pid=$!
                sleep \(sleep); i=0
                while [ "$(count)" -lt $((start + 20)) ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done
                kill -\(signal) $pid; wait $pid; echo "status $?"
                cat err.txt >&2
                """
            }
            let killed = try await CLI.shell(stopped("KILL", sleep: "1"), in: dir, timeout: Self.deadline)
            #expect(killed.stdout.contains("status 137"), "killed mid-way: \(killed)")
            let afterKill = try Self.titles(in: dir.appendingPathComponent("out"))
            #expect(afterKill.count >= 20 && afterKill.count < 300, "\(afterKill.count) titles before the kill")
            #expect(afterKill.allSatisfy { clean[$0.key] == $0.value }, "every file there is whole")

            let terminated = try await CLI.shell(stopped("TERM", extra: "--skip-existing", sleep: "0"), in: dir, timeout: Self.deadline)
            #expect(terminated.stdout.contains("status 75"), "SIGTERM: 75 (EX_TEMPFAIL): \(terminated)")
            #expect(terminated.stderrLines.last?.hasPrefix("error: stopped by signal 15 after ") == true
                    && terminated.stderr.contains("run it again with --skip-existing"), "\(terminated)")

            let before = try Self.titles(in: dir.appendingPathComponent("out")).count
            let rerun = try await CLI.run(["batch", "t.csv", "-o", "out", "--name", "{row}", "--manifest", "m.jsonl", "--skip-existing"],
                                          in: dir, timeout: Self.deadline)
            #expect(rerun.status == 0 && rerun.stderr.isEmpty, "\(rerun)")
            #expect(rerun.stdout.contains(": \(300 - before) titles in") && rerun.stdout.contains(", \(before) skipped"),
                    "\(before) were done: \(rerun)")
            #expect(try Self.titles(in: dir.appendingPathComponent("out")) == clean)
            #expect(CLI.temporaryFiles(in: dir.appendingPathComponent("out")).isEmpty,
                    "left \(CLI.temporaryFiles(in: dir.appendingPathComponent("out")))")
            // Every line whole; each row's last line says it is done, with its file's hash.
            var last: [Int: [String: Any]] = [:]
            for line in try Self.manifest(dir.appendingPathComponent("m.jsonl")) {
                last[try #require(line["row"] as? Int)] = line
            }
            #expect(Set(last.keys) == Set(1...300))
            for (row, line) in last {
                let status = line["status"] as? String
                #expect(status == "written" || status == "skipped", "row \(row): \(line)")
                let name = String(format: "%03d.png", row)
                let bytes = try #require(clean[name])
                #expect(line["sha256"] as? String == CardSignature.hex(CardSignature.sha256(Array(bytes))), "row \(row)")
                #expect(line["output"] as? String == "out/" + name)
            }
            // A second rerun skips all 300 and renders none.
            let again = try await CLI.run(["batch", "t.csv", "-o", "out", "--name", "{row}", "--skip-existing"], in: dir, timeout: Self.deadline)
            #expect(again.status == 0 && again.stdout.contains(": 0 titles in") && again.stdout.contains(", 300 skipped"), "\(again)")
        }
    }

    /// A replaced pod: two processes on the same index at once, into one folder. Every
    /// file is whole (the clean run's bytes) and no temporary is left.
    @Test func twoProcessesOnOneShardLeaveWholeFiles() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let clean = try await Self.cleanRun(90, in: dir)
            try Data(Self.csv(90).utf8).write(to: dir.appendingPathComponent("t.csv"))
            // Both started at once, as the two pods are, on task 2 of 3.
            let runs = try await withThrowingTaskGroup(of: CLI.Result.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        try await CLI.run(["batch", "t.csv", "--shard", "auto/3", "-o", "out", "--name", "{row}", "-q"], in: dir,
                                          environment: ["JOB_COMPLETION_INDEX": "1"], timeout: Self.deadline)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(runs.allSatisfy { $0.status == 0 && $0.stderr.isEmpty }, "\(runs)")
            let written = try Self.titles(in: dir.appendingPathComponent("out"))
            #expect(written.keys.sorted() == stride(from: 2, through: 89, by: 3).map { String(format: "%02d.png", $0) })
            #expect(written.allSatisfy { clean[$0.key] == $0.value })
            #expect(CLI.temporaryFiles(in: dir.appendingPathComponent("out")).isEmpty)
        }
    }

    /// `--skip-existing` renders again a row whose recipe changed and a file cut short,
    /// and leaves the rest; it needs the recipe a PNG carries.
    @Test func skipExistingRendersChangedAndDamagedRowsAgain() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data("text,size\nA,12\nB,12\nC,12\n".utf8).write(to: dir.appendingPathComponent("t.csv"))
            let first = try await CLI.run(["batch", "t.csv", "-o", "out", "--name", "{row}", "-q"], in: dir, timeout: Self.deadline)
            #expect(first.status == 0, "\(first)")
            let before = try Self.titles(in: dir.appendingPathComponent("out"))
            try Data("text,size\nA,12\nB,14\nC,12\n".utf8).write(to: dir.appendingPathComponent("t.csv"))
            let three = dir.appendingPathComponent("out/3.png")
            let c = try Data(contentsOf: three)
            // Cut in its image data, after the recipe: a copy that stopped short.
            try c.prefix(c.count - 40).write(to: three)
            let r = try await CLI.run(["batch", "t.csv", "-o", "out", "--name", "{row}", "--skip-existing"], in: dir, timeout: Self.deadline)
            #expect(r.status == 0 && r.stdout.contains(": 2 titles in") && r.stdout.contains(", 1 skipped"), "\(r)")
            let after = try Self.titles(in: dir.appendingPathComponent("out"))
            #expect(after["1.png"] == before["1.png"] && after["3.png"] == before["3.png"] && after["2.png"] != before["2.png"],
                    "\(after.keys.sorted())")
            let refused = try await CLI.run(["batch", "t.csv", "-o", "out", "--skip-existing", "--no-metadata"], in: dir)
            #expect(refused.status == 64 && refused.stderrLines.count == 1 && refused.stderr.contains("which --no-metadata leaves out"),
                    "\(refused)")
        }
    }

    /// A JPEG or WebP carries the recipe's stamp (the recipe and the encoding's quality):
    /// a rerun skips them all, another quality renders them again, a file cut short too.
    @Test(arguments: ["jpg", "webp"]) func skipExistingKnowsJPEGAndWebPTitles(_ ext: String) async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data("text,size\nA,12\nB,12\nC,12\n".utf8).write(to: dir.appendingPathComponent("t.csv"))
            let batch = ["batch", "t.csv", "-o", "out", "--name", "{row}.\(ext)", "--set", "background=#202020", "--skip-existing"]
            let first = try await CLI.run(batch, in: dir, timeout: Self.deadline)
            #expect(first.status == 0 && first.stdout.contains(": 3 titles in") && !first.stdout.contains("skipped"), "\(first)")
            let again = try await CLI.run(batch, in: dir, timeout: Self.deadline)
            #expect(again.status == 0 && again.stdout.contains(": 0 titles in") && again.stdout.contains(", 3 skipped"), "\(again)")
            let two = dir.appendingPathComponent("out/2.\(ext)")
            let whole = try Data(contentsOf: two)
            try whole.prefix(whole.count - 2).write(to: two)
            let mended = try await CLI.run(batch, in: dir, timeout: Self.deadline)
            #expect(mended.stdout.contains(": 1 title in") && mended.stdout.contains(", 2 skipped"), "\(mended)")
            #expect(try Data(contentsOf: two) == whole)
            let other = try await CLI.run(batch + ["--quality", "70"], in: dir, timeout: Self.deadline)
            #expect(other.status == 0 && other.stdout.contains(": 3 titles in") && !other.stdout.contains("skipped"), "\(other)")
        }
    }

    /// The exit statuses a scheduler acts on: 65 for rows refused for their input, 75
    /// for the machine (here a file-size limit, as a full disk), 64 for the command.
    @Test func theExitStatusSaysWhetherToRetry() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data("text,size\nA,12\nB,9999\n".utf8).write(to: dir.appendingPathComponent("bad.csv"))
            let refused = try await CLI.run(["batch", "bad.csv", "-o", "out", "--manifest", "m.jsonl"], in: dir, timeout: Self.deadline)
            #expect(refused.status == 65 && refused.stderrLines.count == 1 && refused.stderr.hasPrefix("error: bad.csv:3: "), "\(refused)")
            let lines = try Self.manifest(dir.appendingPathComponent("m.jsonl"))
            #expect(lines.count == 2 && lines.contains { $0["row"] as? Int == 2 && $0["status"] as? String == "refused"
                                                          && ($0["error"] as? String)?.isEmpty == false }, "\(lines)")
            try Data("text,size\nA,40\nB,40\n".utf8).write(to: dir.appendingPathComponent("t.csv"))
            let full = try await CLI.shell(#"ulimit -f 1; "$M" batch t.csv -o full --manifest f.jsonl"#, in: dir, timeout: Self.deadline)
            #expect(full.status == 75 && full.stderrLines.count == 2 && full.stderr.contains("ulimit -f"), "\(full)")
            #expect(try Self.manifest(dir.appendingPathComponent("f.jsonl")).allSatisfy { $0["status"] as? String == "failed" })
            #expect(CLI.temporaryFiles(in: dir.appendingPathComponent("full")).isEmpty)
            let usage = try await CLI.run(["batch", "missing.csv"], in: dir)
            #expect(usage.status == 64 && usage.stderrLines.count == 1, "\(usage)")
            let link = try await CLI.shell(#"ln -s t.csv link.jsonl; "$M" batch t.csv -o out --manifest link.jsonl"#, in: dir)
            #expect(link.status == 64 && link.stderr.contains("is a symbolic link"), "\(link)")
        }
    }

    /// A real Slurm array: a single-node cluster from Debian's slurm-wlm and munge
    /// (scripts/slurm-cluster.sh), `sbatch --array=1-5:2` (tasks 1, 3 and 5, so the
    /// shard comes from SLURM_ARRAY_TASK_ID, _MIN and _STEP) over 300 rows: each row once.
    @Test(.enabled(if: CLI.isRoot && FileManager.default.isExecutableFile(atPath: "/usr/bin/sbatch"),
                   "needs root and slurm-wlm (bash scripts/install-deps.sh --test)"))
    func aSlurmArrayRendersEveryRowOnce() async throws {
        try await CLI.withTemporaryDirectory { dir in
            let clean = try await Self.cleanRun(300, in: dir)
            try Data(Self.csv(300).utf8).write(to: dir.appendingPathComponent("t.csv"))
            let cluster = CLI.packageRoot.appendingPathComponent("scripts/slurm-cluster.sh").path
            // The test process blocks most signals in the threads that spawn, and children
            // inherit that mask; the daemons need theirs, so the script starts with none blocked.
            let script = #"""
                D=$(mktemp -d /tmp/slurm-XXXXXX)
                trap 'bash "$CLUSTER" stop "$D" >/dev/null 2>&1; rm -rf "$D"' EXIT
                conf=$(bash "$CLUSTER" start "$D") || exit 1
                export "$conf"
                timeout 180 sbatch --wait --array=1-5:2 -o "$D/task-%a.txt"                   --wrap ""$M" batch t.csv --shard auto -o out --name '{row}' --manifest m.jsonl"
                status=$?
                cat "$D"/task-*.txt
                echo "sbatch $status"
                """#
            let r = try await CLI.run(["-c", "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv('/bin/bash', ['bash', '-c', sys.argv[1]])", script],
                                      in: dir, environment: ["M": try CLI.binary().path, "CLUSTER": cluster],
                                      timeout: .seconds(240), executable: URL(fileURLWithPath: "/usr/bin/python3"))
            #expect(r.stdout.hasSuffix("sbatch 0\n"), "\(r)")
            for task in ["1", "3", "5"] {
                #expect(r.stdout.contains("(shard \(["1": 1, "3": 2, "5": 3][task] ?? 0)/3, SLURM_ARRAY_TASK_ID=\(task), SLURM_ARRAY_TASK_MIN=1, step 2): 100 titles in"),
                        "task \(task): \(r.stdout)")
            }
            #expect(try Self.titles(in: dir.appendingPathComponent("out")) == clean)
            let rows = try Self.manifest(dir.appendingPathComponent("m.jsonl")).compactMap { $0["row"] as? Int }
            #expect(rows.count == 300 && Set(rows) == Set(1...300), "each row once: \(rows.count) lines")
        }
    }

    /// GNU parallel, as a user runs it: `{}`, and `PARALLEL_SEQ` (`-N0 … --shard auto/3`: no argument put in).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/parallel"), "needs GNU parallel"))
    func gnuParallelSplitsTheRows() async throws {
        try await CLI.withTemporaryDirectory { dir in
            try Data(Self.csv(30).utf8).write(to: dir.appendingPathComponent("t.csv"))
            let r = try await CLI.shell(#"""
                parallel -j3 "$M" batch t.csv --shard {}/3 -o a --name '{row}' -q ::: 1 2 3 &&
                parallel -j3 -N0 "$M" batch t.csv --shard auto/3 -o b --name '{row}' -q ::: 1 2 3
                """#, in: dir, timeout: Self.deadline)
            #expect(r.status == 0 && r.stderr.isEmpty, "\(r)")
            let a = try Self.titles(in: dir.appendingPathComponent("a")), b = try Self.titles(in: dir.appendingPathComponent("b"))
            #expect(a.count == 30 && a == b)
        }
    }
}
