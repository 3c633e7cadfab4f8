-- TripStream's views over a replay's output folder (`tripstream replay … --out DIR`), for DuckDB.
--
--     duckdb -init analysts/views.sql                            -- reads out/ under the current directory
--     TRIPSTREAM_OUT=runs/june duckdb -init analysts/views.sql   -- reads runs/june/
--     SET VARIABLE tripstream_out = 'runs/july';                 -- in a session: the views read runs/july/ from then on
--
-- The folder holds events.ndjson, eta.ndjson, dead-letters.ndjson and trip-summaries.ndjson (a replay
-- with --compress writes .ndjson.lz4: `lz4 -d` them first). Times are UTC TIMESTAMPs. Events, ETA
-- updates and trip summaries are upserted by `_id` as a consumer would: the latest publication of an
-- `_id` (the last line) wins, and a retraction removes it. `event_publications` keeps every line.

SET VARIABLE tripstream_out = coalesce(getvariable('tripstream_out'), nullif(getenv('TRIPSTREAM_OUT'), ''), 'out');

-- Every line of one output file, with its line number (file order is publication order).
CREATE OR REPLACE TEMP MACRO tripstream_lines(output) AS TABLE
    SELECT ordinality AS line, json
    FROM read_json_objects(getvariable('tripstream_out') || '/' || output || '.ndjson',
                           format = 'newline_delimited') WITH ORDINALITY;

-- The latest publication of each `_id` of one output file, retracted ones left out.
CREATE OR REPLACE TEMP MACRO tripstream_upserted(output) AS TABLE
    SELECT line, json FROM tripstream_lines(output)
    QUALIFY row_number() OVER (PARTITION BY json->>'_id' ORDER BY line DESC) = 1
        AND NOT coalesce(CAST(json->>'retracted' AS BOOLEAN), false);

-- Every publication of an event: originals, corrections (`corrected`) and retractions (`retracted`).
CREATE OR REPLACE TEMP VIEW event_publications AS
SELECT line, json->>'_id' AS id, json->>'type' AS type, json->'user'->>'userId' AS user_id,
       CAST(json->>'createdAt' AS TIMESTAMP) AS created_at,
       coalesce(CAST(json->>'corrected' AS BOOLEAN), false) AS corrected,
       coalesce(CAST(json->>'retracted' AS BOOLEAN), false) AS retracted,
       json
FROM tripstream_lines('events');

-- The events a consumer ends with, one row per `_id`. `trip` and `geofence` are Radar's objects (JSON).
CREATE OR REPLACE TEMP VIEW events AS
SELECT json->>'_id' AS id,
       json->>'type' AS type,
       json->'user'->>'userId' AS user_id,
       CAST(json->>'createdAt' AS TIMESTAMP) AS created_at,
       CAST(json->>'actualCreatedAt' AS TIMESTAMP) AS actual_created_at,
       CAST(json->'location'->'coordinates'->>0 AS DOUBLE) AS longitude,
       CAST(json->'location'->'coordinates'->>1 AS DOUBLE) AS latitude,
       CAST(json->>'locationAccuracy' AS DOUBLE) AS location_accuracy,
       json->'geofence'->>'tag' AS geofence_tag,
       json->'geofence'->>'externalId' AS geofence_id,
       json->'geofence' AS geofence,
       json->'trip' AS trip,
       json->'trip'->>'externalId' AS trip_id,
       CAST(json->>'duration' AS DOUBLE) AS duration_minutes,
       CAST(json->>'confidence' AS INTEGER) AS confidence,
       coalesce(CAST(json->>'replayed' AS BOOLEAN), false) AS replayed,
       coalesce(CAST(json->>'late' AS BOOLEAN), false) AS late,
       coalesce(CAST(json->>'corrected' AS BOOLEAN), false) AS corrected,
       line,
       json
FROM tripstream_upserted('events');

-- One row per trip (user, trip id, start), from its events: the latest status, the destination, when it
-- arrived (the last arrival: a trip with legs arrives once per leg) and stopped, and how many events it had.
CREATE OR REPLACE TEMP VIEW trips AS
SELECT user_id,
       trip_id,
       CAST(trip->>'startedAt' AS TIMESTAMP) AS started_at,
       arg_max(trip->>'status', line) AS status,
       arg_max(trip->>'mode', line) AS mode,
       arg_max((trip->>'destinationGeofenceTag') || '/' || (trip->>'destinationGeofenceExternalId'), line)
           AS destination,
       CAST(arg_max(trip->>'scheduledArrivalAt', line) AS TIMESTAMP) AS scheduled_arrival_at,
       max(created_at) FILTER (WHERE type = 'user.arrived_at_trip_destination') AS arrived_at,
       count(*) FILTER (WHERE type = 'user.arrived_at_trip_destination') AS arrivals,
       max(created_at) FILTER (WHERE type = 'user.stopped_trip') AS stopped_at,
       count(*) FILTER (WHERE type = 'user.delayed_during_trip') > 0 AS delayed,
       count(*) AS events
FROM events
WHERE trip IS NOT NULL
GROUP BY user_id, trip_id, started_at;

-- Lean ETA updates (`tripstream.eta`), one row per `_id`: minutes and meters to the destination, with the
-- 10–90% range of the time left.
CREATE OR REPLACE TEMP VIEW eta AS
SELECT json->>'_id' AS id,
       json->>'userId' AS user_id,
       json->>'externalId' AS trip_id,
       json->>'status' AS status,
       CAST(json->>'createdAt' AS TIMESTAMP) AS created_at,
       CAST(json->'eta'->>'duration' AS DOUBLE) AS duration_minutes,
       CAST(json->'eta'->>'distance' AS DOUBLE) AS distance_meters,
       CAST(json->'eta'->>'durationLow' AS DOUBLE) AS duration_low_minutes,
       CAST(json->'eta'->>'durationHigh' AS DOUBLE) AS duration_high_minutes,
       (json->>'destinationGeofenceTag') || '/' || (json->>'destinationGeofenceExternalId') AS destination,
       CAST(json->>'scheduledArrivalAt' AS TIMESTAMP) AS scheduled_arrival_at,
       coalesce(CAST(json->>'delayed' AS BOOLEAN), false) AS delayed,
       coalesce(CAST(json->>'replayed' AS BOOLEAN), false) AS replayed,
       coalesce(CAST(json->>'late' AS BOOLEAN), false) AS late,
       json
FROM tripstream_upserted('eta');

-- Every input the fold could not use, with its reason. From Kafka: topic, partition and offset; from a
-- file: the file and its line. `value` is the original text (`value_base64` when it was not UTF-8).
CREATE OR REPLACE TEMP VIEW dead_letters AS
SELECT line,
       json->>'reason' AS reason,
       json->>'detail' AS detail,
       json->>'topic' AS topic,
       CAST(json->>'partition' AS INTEGER) AS kafka_partition,
       CAST(json->>'offset' AS BIGINT) AS kafka_offset,
       json->>'file' AS source_file,
       CAST(json->>'line' AS BIGINT) AS source_line,
       json->>'key' AS key,
       CAST(json->>'receivedAt' AS TIMESTAMP) AS received_at,
       json->>'value' AS value,
       json->>'valueBase64' AS value_base64,
       CAST(json->>'valueSize' AS BIGINT) AS value_size,
       coalesce(CAST(json->>'valueTruncated' AS BOOLEAN), false) AS value_truncated,
       json
FROM tripstream_lines('dead-letters');

-- One row per finished trip (`tripstream.trip-summaries`), upserted by `_id` (the stop event's).
CREATE OR REPLACE TEMP VIEW trip_summaries AS
SELECT json->>'_id' AS id,
       json->>'userId' AS user_id,
       json->>'tripExternalId' AS trip_id,
       json->>'status' AS status,
       json->>'mode' AS mode,
       (json->>'destinationGeofenceTag') || '/' || (json->>'destinationGeofenceExternalId') AS destination,
       CAST(json->>'startedAt' AS TIMESTAMP) AS started_at,
       CAST(json->>'stoppedAt' AS TIMESTAMP) AS stopped_at,
       CAST(json->>'durationSeconds' AS DOUBLE) AS duration_seconds,
       CAST(json->>'distanceMeters' AS DOUBLE) AS distance_meters,
       CAST(json->>'arrived' AS BOOLEAN) AS arrived,
       CAST(json->>'arrivedAt' AS TIMESTAMP) AS arrived_at,
       CAST(json->>'timeOnSiteSeconds' AS DOUBLE) AS time_on_site_seconds,
       CAST(json->>'scheduledArrivalAt' AS TIMESTAMP) AS scheduled_arrival_at,
       CAST(json->>'arrivalDelaySeconds' AS DOUBLE) AS arrival_delay_seconds,
       CAST(json->>'etaError25Seconds' AS DOUBLE) AS eta_error_25_seconds,
       CAST(json->>'etaError50Seconds' AS DOUBLE) AS eta_error_50_seconds,
       CAST(json->>'etaError75Seconds' AS DOUBLE) AS eta_error_75_seconds,
       CAST(json->>'etaInRange25' AS BOOLEAN) AS eta_in_range_25,
       CAST(json->>'etaInRange50' AS BOOLEAN) AS eta_in_range_50,
       CAST(json->>'etaInRange75' AS BOOLEAN) AS eta_in_range_75,
       json->'metadata' AS metadata,
       json
FROM tripstream_upserted('trip-summaries');
