import Codec
import Domain
import KafkaIO

/// Transactions: sealed between fold rounds, committed by the transactional producer while the fold
/// goes on, their outcomes applied here.
extension RuntimeStateMachine {
    /// Seals the partitions folded since the last seal into a transaction and submits it, when the
    /// commit interval has passed and no transaction is in flight; or, caught up with the inputs, as
    /// soon as the producer is idle and a quarter of the interval has passed.
    ///
    /// Catching up, a transaction gathers a whole interval: its fixed costs (round trips, markers)
    /// are shared by more inputs. Caught up, nothing is gained by holding inputs while the committer
    /// waits: at 50,000 fixes/s on the dev broker, sealing early took the input-to-commit p99 from
    /// ≤ 250–300 ms to ≤ 150–200 ms (`bench --pipeline --latency-rate 50000`). A quarter, not
    /// nothing: a trickle of inputs does not become a transaction per poll.
    mutating func sealIfDue(force: Bool) {
        let started = now.monotonic
        let owners = assignment.owners.values
        guard pipeline.shared.recordCount > 0 || owners.contains(where: \.dirty) else {
            pipeline.lastSeal = started
            return
        }
        let held = owners.reduce(pipeline.shared.byteCount) { $0 + $1.output.byteCount }
        let elapsed = (started - pipeline.lastSeal) * 1000, interval = Double(options.commitInterval)
        let committing = pipeline.inFlight
        let due = elapsed >= interval || held >= options.maxTransactionBytes
            || (pipeline.caughtUp && elapsed >= interval / 4 && !committing)
        guard force || due else { return }
        if committing {
            // The commit in flight is slower than folding. Below the bound the fold goes on and the
            // next transaction grows; at the bound the driver waits (its inputs pile up in the
            // merges, which pauses their partitions at the consumer).
            guard force || held >= options.maxTransactionBytes else { return }
            push(.awaitOutcome, .sealAfterWaiting(started: started))
            return
        }
        push(.seal(started: started))
    }

    /// Time spent waiting for a commit is not time the other stream stayed silent; an abort may have
    /// left nothing to seal.
    mutating func sealAfterWaiting(started: Double) -> RuntimeAction? {
        let waited = now.monotonic - started
        for owner in assignment.owners.values { owner.merge.excuse(waited) }
        guard assignment.owners.values.contains(where: \.dirty) || pipeline.shared.recordCount > 0 else { return nil }
        return seal(started: started)
    }

    /// Closes the dirty partitions' parts (users encoded for the changelog on the fold threads). The
    /// interval runs from seal to seal: a slow commit shortens the next wait rather than adding to
    /// every fix's latency.
    mutating func seal(started: Double) -> RuntimeAction {
        let owners = assignment.sortedOwners
        var shared = OutputBatch(newlineSeparated: false)
        swap(&shared, &pipeline.shared)
        pipeline.sealStarted = started
        return .seal(owners: owners, dirty: owners.filter(\.dirty), shared: shared)
    }

    /// Hands the outputs folded since the last seal to the producer, which sends them into the open
    /// transaction while the fold goes on, when no transaction is committing: the commit after the
    /// next seal then has only the users and the changelog left to send, most outputs acknowledged.
    /// They stay in that transaction, committed with the changelog and offsets of their inputs or
    /// aborted with them.
    mutating func sendOutputsEarly() {
        var batches: [OutputBatch] = []
        var records = 0
        for owner in assignment.sortedOwners where owner.output.recordCount > 0 {
            var batch = OutputBatch(newlineSeparated: false)
            swap(&batch, &owner.output)
            records += batch.recordCount
            batches.append(batch)
            pipeline.sentEarly.insert(owner.partition)
        }
        guard !batches.isEmpty else { return }
        push(.perform(.sendEarly(batches)))
        metrics { $0.outputsSentEarly += records }
    }

    /// The open transaction was aborted with the outputs sent early into it (or none was open): all the
    /// work not yet committed is dropped, to be folded again from the partitions' committed state.
    mutating func discarded(_ outcome: CommitOutcome?) {
        if case let .fatal(error) = outcome {
            end(with: .fail(error))
            return
        }
        if case .aborted = outcome {
            log("transaction aborted: it held early outputs of work dropped without a commit")
            metrics { $0.transactionsAborted += 1 }
        }
        pipeline.sentEarly.removeAll()
        push(.perform(.dropUncommitted(assignment.sortedOwners)))
    }

    /// Applies how the transaction in flight ended.
    mutating func apply(_ outcome: CommitOutcome, of receipt: TransactionReceipt) {
        pipeline.inFlight = false
        pipeline.sentEarly.removeAll()  // committed or aborted with the transaction that ended
        switch outcome {
        case let .committed(seconds, committedAt, oversized, retries):
            // Committed: the history changes the changelog now holds may reach the local store.
            var commits: [(owner: PartitionOwner, generation: UInt64)] = []
            for part in receipt.parts {
                guard let owner = assignment.owners[part.partition], ObjectIdentifier(owner) == part.owner else { continue }
                commits.append((owner, part.historyGeneration))
                owner.sealedUncommitted = false
                if case let .sealed(image, checkpoint) = owner.snapshotCapture {
                    owner.snapshotCapture = .committed(image: image, checkpoint: checkpoint)
                }
            }
            upkeep.retired.oversizedOutputs += oversized
            let parts = receipt.parts
            metrics { values in
                values.transactionsCommitted += 1
                values.consecutiveAborts = 0
                values.transactionRetries += retries
                values.commitSeconds.observe(seconds)
                for part in parts {
                    values.inputsCommitted += part.inputs
                    if let offsets = part.offsets { values.committedOffsets[part.partition] = offsets }
                    for timestamp in part.inputTimestamps {
                        values.inputToCommitSeconds.observe(Double(committedAt - timestamp) / 1000)
                    }
                }
            }
            push((commits.isEmpty ? [] : [.perform(.commitHistory(commits))]) + [.writeCommittedImages, .publishCounters])
        case let .aborted(reason, seconds):
            log("transaction aborted (\(reason)); rebuilding state from the changelog")
            metrics {
                $0.transactionsAborted += 1
                $0.consecutiveAborts += 1
                $0.commitSeconds.observe(seconds)
            }
            // What was folded since (the next transaction's inputs) grew from the aborted state too.
            // The geofence table's dead letters it carried are not read again: they go in the next one.
            var shared = receipt.shared
            shared.append(contentsOf: pipeline.shared)
            pipeline.shared = shared
            push(.perform(.dropUncommitted(assignment.sortedOwners)), .rebuildOwned, .publishCounters)
        case let .fatal(error):
            if error.fencesThisInstance { metrics { $0.producerFenced = true } }
            end(with: .fail(error))  // fenced by a newer instance, or an unrecoverable client error
        }
    }
}
