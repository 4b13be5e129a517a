package io.cronoq.ops.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.JournalEntry;
import io.cronoq.events.JournalItem;
import io.cronoq.scheduler.replay.JournalFold;
import io.cronoq.schemas.AvroSerde;
import io.cronoq.schemas.InMemorySchemaRegistry;
import io.cronoq.schemas.events.Journal;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.apache.avro.Schema;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A journal written by the release before journal records carried several entries (one record per
 * entry, {@code recorded/journal-v2.tsv}: the writer schema and its registry id, then each record's
 * bytes in the Confluent wire format with the entry as that release printed it) is read by today's
 * code as it was written: every entry, in order; folded; simulated to the same decisions. And
 * today's records, several entries each, read back to the same entries and fold alike.
 */
class RecordedJournalTest {

    private static final String TOPIC = "cronoq.journal";
    private static final InMemorySchemaRegistry registry = new InMemorySchemaRegistry();
    private static final AvroSerde<JournalEntry> serde = AvroSerde.of(JournalEntry.class, registry);
    private static int recordedId;
    private static Schema recordedSchema;
    private static final List<byte[]> values = new ArrayList<>();
    private static final List<String> printed = new ArrayList<>();

    @BeforeAll
    static void readTheRecording() throws IOException {
        try (InputStream in = RecordedJournalTest.class.getResourceAsStream("/recorded/journal-v2.tsv")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                String[] f = line.split("\t");
                if (f[0].equals("schema")) {
                    recordedId = Integer.parseInt(f[1]);
                    recordedSchema = new Schema.Parser().parse(f[2]);
                } else {
                    values.add(Base64.getDecoder().decode(f[3]));
                    printed.add(f[4]);
                }
            }
        }
        // The registry the journal was written with had this schema under the journal's subject.
        assertThat(registry.register(serde.subject(TOPIC), recordedSchema)).isEqualTo(recordedId);
    }

    @Test
    void everyRecordOfTheEarlierReleaseReadsAsTheOneEntryItWrote() {
        assertThat(recordedSchema.getField("more")).as("the recording predates records of several entries").isNull();
        assertThat(values).hasSizeGreaterThan(500);
        for (int i = 0; i < values.size(); i++) {
            List<JournalEntry> entries = Journal.entries(serde.deserialize(TOPIC, values.get(i)));
            String then = printed.get(i);

            // Fields added since read as their defaults: a record's 'more' (empty) and 'heardAt' (null), a
            // submission's 'tenant' (null), 'concurrency' and 'rateLimits' (empty) and 'gang' (null), an
            // assignment's 'gang' (null) and 'parentResults' (empty), a registration's 'address' (null), a
            // submission's parents: 'after' (empty), 'runIfParentUnmet' (false), 'workflow' (null).
            assertThat(entries).hasSize(1);
            assertThat(entries.get(0).toString()
                    .replace(", \"after\": [], \"runIfParentUnmet\": false, \"workflow\": null}", "}")
                    .replace(", \"parentResults\": {}}", "}").replace(", \"gang\": null}", "}").replace(", \"address\": null", "")
                    .replace(", \"tenant\": null, \"concurrency\": [], \"rateLimits\": []}", "}"))
                    .isEqualTo(then.substring(0, then.length() - 1) + ", \"more\": [], \"heardAt\": null}");
        }
    }

    @Test
    void theRecordedDaySimulatesToEveryDecisionItRecorded() {
        List<JournalEntry> recorded = recordedEntries();
        SimulationTest.JournalShape.isRich(recorded);

        WhatIf.Report report = WhatIf.run(recorded, FleetChange.none());

        assertThat(report.reproduced()).isTrue();
        for (String pool : List.of("batch", "etl")) {
            List<JournalEntry> ofPool = recorded.stream().filter(e -> e.getPool().equals(pool)).toList();
            List<JournalEntry> simulated = Simulation.run(pool, ofPool, FleetChange.none()).journal();
            assertThat(simulated.stream().map(JournalEntry::getEvent).toList())
                    .as("every input and decision of %s, as journaled", pool)
                    .containsExactlyElementsOf(ofPool.stream().map(JournalEntry::getEvent).toList());
        }
    }

    @Test
    void todaysRecordsOfSeveralEntriesReadBackToTheSameEntriesAndFoldAlike() {
        List<JournalEntry> recorded = recordedEntries();
        List<byte[]> today = new ArrayList<>();
        for (JournalEntry record : grouped(recorded)) {
            today.add(serde.serialize(TOPIC, record));
        }
        List<JournalEntry> readBack = new ArrayList<>();
        JournalFold foldOfRecords = new JournalFold();
        for (byte[] value : today) {
            JournalEntry record = serde.deserialize(TOPIC, value);
            foldOfRecords.apply(record);
            readBack.addAll(Journal.entries(record));
        }
        JournalFold foldOfEntries = new JournalFold();
        foldOfEntries.applyAll(recorded);

        assertThat(today).as("fewer records than entries").hasSizeLessThan(recorded.size() * 3 / 4);
        assertThat(readBack).containsExactlyElementsOf(recorded);
        assertThat(foldOfRecords.tasks()).isEqualTo(foldOfEntries.tasks());
        assertThat(foldOfRecords.workers()).containsExactlyInAnyOrderElementsOf(foldOfEntries.workers());
    }

    private static List<JournalEntry> recordedEntries() {
        List<JournalEntry> entries = new ArrayList<>();
        values.forEach(v -> entries.addAll(Journal.entries(serde.deserialize(TOPIC, v))));
        return entries;
    }

    /** Consecutive entries of one pool and time in one record, as the scheduler writes what one input caused. */
    private static List<JournalEntry> grouped(List<JournalEntry> entries) {
        List<JournalEntry> records = new ArrayList<>();
        JournalEntry open = null;
        for (JournalEntry e : entries) {
            if (open != null && open.getPool().equals(e.getPool()) && open.getAt().equals(e.getAt())) {
                open.getMore().add(new JournalItem(e.getEvent(), e.getCause(), null, null));
            } else {
                open = new JournalEntry(e.getPool(), e.getAt(), e.getEvent(), e.getCause(), new ArrayList<>(),
                        e.getHeardAt());
                records.add(open);
            }
        }
        return records;
    }
}
