import Glibc

extension MockCluster {
    /// Carries out one step of a chaos schedule: injects its fault or heals it.
    ///
    /// - Throws: ``KafkaError`` when the mock refuses (e.g. a broker id it does not have).
    public func apply(_ step: ChaosStep) throws(KafkaError) {
        switch (step.fault, step.action) {
        case let (.brokerDown(broker, _), .inject): try setBrokerDown(broker)
        case let (.brokerDown(broker, _), .heal): try setBrokerUp(broker)
        case let (.roundTripSpike(broker, roundTrip, _), .inject):
            try setBrokerRoundTripTime(broker, milliseconds: roundTrip)
        case let (.roundTripSpike(broker, _, _), .heal): try setBrokerRoundTripTime(broker, milliseconds: 0)
        case let (.leaderMove(topic, partition, broker), .inject):
            try setPartitionLeader(topic: topic, partition: partition, brokerId: broker)
        case let (.coordinatorMove(kind, key, broker), .inject): try setCoordinator(kind, key: key, brokerId: broker)
        case let (.requestErrors(request, errors), .inject): pushRequestErrors(apiKey: request.api, errors: errors)
        case (.leaderMove, .heal), (.coordinatorMove, .heal), (.requestErrors, .heal):
            break  // nothing to bring back: the cluster simply goes on from where the fault left it
        }
    }
}

extension MockCluster {
    /// Runs a chaos schedule on this cluster, each step at its time after the call, until `shouldStop` says so
    /// (checked at least every 100 ms).
    ///
    /// - Parameters:
    ///   - report: called after each step with the error the mock answered, if any (the schedule goes on).
    public func run<Random>(
        _ schedule: ChaosSchedule<Random>, until shouldStop: () -> Bool, report: (ChaosStep, KafkaError?) -> Void
    ) {
        var schedule = schedule
        let clock = ContinuousClock()
        let started = clock.now
        while let step = schedule.next() {
            let due = started + .milliseconds(step.at)
            while true {
                let left = clock.now.duration(to: due)
                guard left > .zero else { break }
                if shouldStop() { return }
                usleep(UInt32(min(left, .milliseconds(100)).kafkaMilliseconds) * 1_000)
            }
            if shouldStop() { return }
            do {
                try apply(step)
                report(step, nil)
            } catch {
                report(step, error)
            }
        }
    }
}
