// sarama-consumer reads a topic in a consumer group with read_committed isolation, using Sarama
// (an independent Kafka protocol implementation), and prints each record as one JSON line:
// {"partition": P, "offset": O, "key": "...", "value": <the record's JSON value>}.
// It exits after -idle seconds without a new record, once at least -min records were read. With -done FILE it
// exits instead once FILE exists (the producers have finished) and it has read every partition up to the end
// offset the brokers then give: a consumer held up by a rebalance or a broker failing cannot end the run early.
// (On the dev broker the end offset is the last record's plus one: it writes no transaction markers.)
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/Shopify/sarama"
)

type handler struct {
	mu    sync.Mutex
	last  time.Time
	count int
	next  map[int32]int64 // per partition, the offset after the last record read
	out   *json.Encoder
}

func (h *handler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *handler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (h *handler) ConsumeClaim(session sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for message := range claim.Messages() {
		h.mu.Lock()
		record := map[string]interface{}{
			"partition": message.Partition,
			"offset":    message.Offset,
			"key":       string(message.Key),
			"value":     json.RawMessage(message.Value),
		}
		if !json.Valid(message.Value) {
			record["value"] = string(message.Value)
		}
		if err := h.out.Encode(record); err != nil {
			h.mu.Unlock()
			return err
		}
		h.count++
		h.last = time.Now()
		if message.Offset+1 > h.next[message.Partition] {
			h.next[message.Partition] = message.Offset + 1
		}
		h.mu.Unlock()
		session.MarkMessage(message, "")
	}
	return nil
}

func main() {
	brokers := flag.String("brokers", "", "bootstrap servers, comma separated")
	topic := flag.String("topic", "tripstream.events", "topic to read")
	group := flag.String("group", "sarama-check", "consumer group id")
	idle := flag.Int("idle", 10, "seconds without records before exiting")
	minimum := flag.Int("min", 1, "records to read before idling may end the run")
	timeout := flag.Int("timeout", 300, "overall seconds before giving up")
	session := flag.Duration("session-timeout", 10*time.Second, "the group session timeout (heartbeats every tenth of it)")
	done := flag.String("done", "", "a file that exists once the producers have finished; idling ends the run only then")
	flag.Parse()

	config := sarama.NewConfig()
	// The mock cluster answers Metadata only up to v2: Kafka 0.11 is the newest protocol it speaks.
	config.Version = sarama.V0_11_0_0
	config.Consumer.IsolationLevel = sarama.ReadCommitted
	config.Consumer.Offsets.Initial = sarama.OffsetOldest
	config.Consumer.Return.Errors = false
	config.Consumer.Group.Session.Timeout = *session
	config.Consumer.Group.Heartbeat.Interval = *session / 10

	client, err := sarama.NewClient(strings.Split(*brokers, ","), config)
	if err != nil {
		log.Fatalf("sarama: %v", err)
	}
	consumer, err := sarama.NewConsumerGroupFromClient(*group, client)
	if err != nil {
		log.Fatalf("sarama: %v", err)
	}
	h := &handler{last: time.Now(), next: map[int32]int64{}, out: json.NewEncoder(os.Stdout)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for ctx.Err() == nil {
			if err := consumer.Consume(ctx, []string{*topic}, h); err != nil && ctx.Err() == nil {
				log.Printf("sarama: consume: %v", err)
				time.Sleep(time.Second)
			}
		}
	}()
	deadline := time.Now().Add(time.Duration(*timeout) * time.Second)
	finished := false
	for !finished && !time.Now().After(deadline) {
		time.Sleep(500 * time.Millisecond)
		h.mu.Lock()
		quiet := time.Since(h.last) > time.Duration(*idle)*time.Second
		count := h.count
		h.mu.Unlock()
		finished = quiet && count >= *minimum
		if *done != "" {
			finished = readToTheEnd(client, h, *topic, *done)
		}
	}
	cancel()
	consumer.Close()
	fmt.Fprintf(os.Stderr, "sarama: read %d records from %s\n", h.count, *topic)
	// Decided once, in the loop: asking the ends again here could meet a broker failing under chaos and call a
	// finished read short.
	if *done != "" && !finished {
		fmt.Fprintf(os.Stderr, "sarama: gave up after %d s short of the end of %s\n", *timeout, *topic)
		os.Exit(1)
	}
}

// readToTheEnd says whether the done file exists and every partition of topic was read up to its end offset.
func readToTheEnd(client sarama.Client, h *handler, topic, done string) bool {
	if _, err := os.Stat(done); err != nil {
		return false
	}
	partitions, err := client.Partitions(topic)
	if err != nil {
		return false
	}
	for _, partition := range partitions {
		end, err := client.GetOffset(topic, partition, sarama.OffsetNewest)
		if err != nil {
			return false // a broker failing: ask again
		}
		h.mu.Lock()
		next := h.next[partition]
		h.mu.Unlock()
		if next < end {
			return false
		}
	}
	return true
}
