package io.cronoq.scheduler.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.scheduler.policy.store.Place;
import io.cronoq.scheduler.policy.store.TimerQueue.Timer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpillingMapTest {

    @TempDir
    Path dir;
    private SpillDisk disk;

    @BeforeEach
    void open() {
        disk = SpillDisk.open(dir.resolve("spill").toFile());
    }

    @AfterEach
    void close() {
        disk.close();
    }

    @Test
    void aLongLineKeepsItsFrontInMemoryAndTheRestOnDiskInOrder() {
        SpillingMap<Place, String> line = new SpillingMap<>(IndexCodecs.LINE, disk, 8);
        for (int i = 0; i < 1_000; i++) {
            assertThat(line.put(new Place(0, i), "t" + i)).isTrue();
        }
        assertThat(line.size()).isEqualTo(1_000);
        assertThat(line.spilled()).as("all but the first eight on disk").isEqualTo(992);

        List<String> drained = new ArrayList<>();
        while (line.first() != null) {
            Map.Entry<Place, String> first = line.first();
            drained.add(first.getValue());
            assertThat(line.remove(first.getKey())).isTrue();
        }
        assertThat(drained).hasSize(1_000).first().isEqualTo("t0");
        assertThat(drained).last().isEqualTo("t999");
        assertThat(drained).isSortedAccordingTo((a, b) -> Integer.compare(Integer.parseInt(a.substring(1)),
                Integer.parseInt(b.substring(1))));
        assertThat(line.size()).isZero();
        assertThat(line.spilled()).isZero();
    }

    @Test
    void randomWorkEqualsASortedMapAndRepeatingAnOperationChangesNothing() {
        Random random = new Random(42);
        for (int round = 0; round < 20; round++) {
            SpillingMap<Place, String> line = new SpillingMap<>(IndexCodecs.LINE, disk, 4 + random.nextInt(12));
            TreeMap<Place, String> model = new TreeMap<>();
            for (int op = 0; op < 2_000; op++) {
                Place place = new Place(random.nextInt(5) - 2, random.nextInt(300));
                int kind = random.nextInt(10);
                if (kind < 5) {
                    String id = "t" + place.rank() + "/" + place.sequence();
                    assertThat(line.put(place, id)).isEqualTo(!model.containsKey(place));
                    model.putIfAbsent(place, id);
                } else if (kind < 8) {
                    assertThat(line.remove(place)).isEqualTo(model.remove(place) != null);
                } else if (!model.isEmpty()) {
                    Place first = model.firstKey();
                    assertThat(line.first().getKey()).isEqualTo(first);
                    assertThat(line.remove(first)).isTrue();
                    assertThat(line.remove(first)).as("a second remove").isFalse();
                    model.remove(first);
                }
                assertThat(line.size()).isEqualTo(model.size());
            }
            assertThat(entries(line)).isEqualTo(new ArrayList<>(model.entrySet()));
            assertThat(line.first(7)).isEqualTo(model.entrySet().stream().limit(7).toList());
            model.forEach((place, id) -> line.remove(place));
        }
    }

    @Test
    void aLoadGathersItsWritesAndReadsInBetweenSeeEveryOne() {
        SpillingMap<Place, String> line = new SpillingMap<>(IndexCodecs.LINE, disk, 16);
        List<Integer> sequences = new ArrayList<>();
        for (int i = 0; i < 2 * SpillDisk.LOAD_BATCH + 123; i++) {
            sequences.add(i);
        }
        Collections.shuffle(sequences, new Random(7)); // as a scan in task-id order meets a line's places
        TreeMap<Place, String> model = new TreeMap<>();
        try (SpillDisk.Load load = disk.load()) {
            assertThat(disk.loading()).isTrue();
            assertThatThrownBy(disk::load).as("one load at a time").isInstanceOf(IllegalStateException.class);
            for (int i = 0; i < sequences.size(); i++) {
                Place place = new Place(0, sequences.get(i));
                assertThat(line.put(place, "t" + place.sequence())).isTrue();
                model.put(place, "t" + place.sequence());
                if (i % 5_000 == 4_999) {
                    assertThat(line.first().getKey()).isEqualTo(model.firstKey());
                    assertThat(entries(line)).as("a read in the load sees every write before it")
                            .isEqualTo(new ArrayList<>(model.entrySet()));
                }
            }
        }
        assertThat(disk.loading()).isFalse();
        assertThat(line.spilled()).isEqualTo(sequences.size() - 16L);
        assertThat(entries(line)).isEqualTo(new ArrayList<>(model.entrySet()));
        assertThat(line.put(new Place(0, 77), "again")).as("after the load, a key there is found again").isFalse();

        int drained = 0;
        for (Map.Entry<Place, String> first = line.first(); first != null; first = line.first()) {
            assertThat(first.getKey()).isEqualTo(model.pollFirstEntry().getKey());
            line.remove(first.getKey());
            drained++;
        }
        assertThat(drained).isEqualTo(sequences.size());
    }

    @Test
    void aLoadEndsQuietlyWhenItsDiskClosedFirst() {
        SpillingMap<Place, String> line = new SpillingMap<>(IndexCodecs.LINE, disk, 4);
        SpillDisk.Load load = disk.load();
        for (int i = 0; i < 10; i++) {
            line.put(new Place(0, i), "t" + i);
        }
        disk.close();
        load.close();
        assertThat(disk.loading()).isFalse();
        assertThatThrownBy(() -> entries(line)).as("the tail is gone with the disk")
                .isInstanceOf(InvalidStateStoreException.class);
    }

    @Test
    void timersOrderOnDiskAsInMemoryWhateverTheirIds() {
        SpillingMap<Timer, Boolean> timers = new SpillingMap<>(IndexCodecs.TIMERS, disk, 4);
        List<Timer> all = List.of(new Timer(-5, "z"), new Timer(10, "b"), new Timer(10, "ab"), new Timer(10, "a"),
                new Timer(10, "\uffff"), new Timer(10, "\ud83d\ude00"), new Timer(10, ""), new Timer(Long.MAX_VALUE, "x"),
                new Timer(Long.MIN_VALUE, "y"), new Timer(11, "a"));
        all.forEach(t -> timers.put(t, Boolean.TRUE));
        assertThat(timers.spilled()).isEqualTo(6);
        List<Timer> expected = new ArrayList<>(all);
        expected.sort(IndexCodecs.TIMER_ORDER);
        assertThat(entries(timers)).extracting(Map.Entry::getKey).isEqualTo(expected);
    }

    @Test
    void aReaderSeesEveryEntryOnceWhileTheWriterMovesThemBetweenMemoryAndDisk() throws Exception {
        SpillingMap<Place, String> line = new SpillingMap<>(IndexCodecs.LINE, disk, 8);
        for (int i = 0; i < 200; i++) {
            line.put(new Place(0, 1_000 + i), "stays-" + i); // never removed: a reader must see all of them
        }
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            try {
                for (int i = 0; i < 20_000; i++) {
                    Place p = new Place(0, i % 1_000); // ahead of the staying ones: pushes them to disk and back
                    line.put(p, "moves");
                    line.remove(p);
                }
            } catch (Throwable t) {
                failed.set(t);
            }
        });
        writer.start();
        int reads = 0;
        while (writer.isAlive() || reads == 0) {
            List<String> seen = new ArrayList<>();
            Place last = null;
            for (Map.Entry<Place, String> e : line.entries()) {
                if (last != null) {
                    assertThat(e.getKey()).isGreaterThan(last);
                }
                last = e.getKey();
                if (e.getValue().startsWith("stays-")) {
                    seen.add(e.getValue());
                }
            }
            assertThat(seen).hasSize(200);
            reads++;
        }
        writer.join();
        assertThat(failed.get()).isNull();
        assertThat(line.size()).isEqualTo(200);
    }

    @Test
    void aClosedDiskFailsReadsAsAClosedStoreDoes() {
        SpillingMap<Place, String> line = new SpillingMap<>(IndexCodecs.LINE, disk, 4);
        for (int i = 0; i < 10; i++) {
            line.put(new Place(0, i), "t" + i);
        }
        disk.close();
        assertThat(dir.resolve("spill")).doesNotExist();
        assertThatThrownBy(() -> entries(line)).isInstanceOf(InvalidStateStoreException.class).hasMessageContaining("ask again");
    }

    @Test
    void opensEmptyWhateverAnEarlierOpenLeft() throws Exception {
        Path kept = Files.createDirectories(dir.resolve("kept"));
        Files.writeString(kept.resolve("left-over"), "x");
        try (SpillDisk again = SpillDisk.open(kept.toFile())) {
            SpillingMap<Place, String> fresh = new SpillingMap<>(IndexCodecs.LINE, again, 4);
            assertThat(fresh.first()).isNull();
            assertThat(kept.resolve("left-over")).doesNotExist();
        }
    }

    @Test
    void withoutADiskEverythingStaysInMemory() {
        SpillingMap<Place, String> line = new SpillingMap<>(IndexCodecs.LINE, null, 4);
        for (int i = 0; i < 100; i++) {
            line.put(new Place(0, 99 - i), "t" + i);
        }
        assertThat(line.spilled()).isZero();
        assertThat(line.first().getValue()).isEqualTo("t99");
        assertThat(entries(line)).hasSize(100);
    }

    private static <K, V> List<Map.Entry<K, V>> entries(SpillingMap<K, V> map) {
        List<Map.Entry<K, V>> all = new ArrayList<>();
        map.entries().forEach(all::add);
        return all;
    }
}
