package io.jtrace.benchmarks;

import io.jtrace.benchmarks.jfrparse.DemoRecording;
import io.jtrace.jfr.format.DescribedTracks;
import io.jtrace.jfr.format.JfrEventMapper;
import io.jtrace.jfr.format.PacketOut;
import io.jtrace.jfr.format.SequenceWriter;
import io.jtrace.jfr.format.TimeMapping;
import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.service.clock.ClockReader;
import io.jtrace.shm.proto.ProtoWriter;
import io.jtrace.shm.proto.SpaceProvider;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What {@code jvm.jfr} does per event once JFR has parsed it: {@link JfrEventMapper#write} on the live
 * path's time mapping (MONOTONIC) and track layout (a {@link ProcessTrack}'s), into packets that go
 * nowhere, so parsing and the shared memory are not in the figure. One operation is one event; the
 * events cycle through a recording made once per fork with JFR's {@code profile} settings of threads
 * that allocate, lock, sleep and commit an application event with fields, so the mix holds slices,
 * instants, counters and samples. The mapper runs in its steady state (tracks described, names
 * interned), as in a long session. {@code -prof gc}'s {@code gc.alloc.rate.norm} is bytes per event.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class JfrMappingBenchmark {
    private static final int MAX_INTERNED = 200_000;
    private RecordedEvent[] events;
    private JfrEventMapper mapper;
    private int next;

    @Name("jtrace.bench.Request")
    @Label("Request")
    static final class RequestEvent extends Event {
        String path;
        int status;
        long bytes;
    }

    @Setup(Level.Trial)
    public void recordAndMap() throws Exception {
        Path dir = Files.createTempDirectory("jtrace-jfr-mapping");
        Path recording = dir.resolve("profile.jfr");
        DemoRecording.record(recording, 4, JfrMappingBenchmark::work);
        events = RecordingFile.readAllEvents(recording).toArray(new RecordedEvent[0]);
        Files.delete(recording);
        Files.delete(dir);
        Map<String, Integer> perType = new TreeMap<>();
        for (RecordedEvent e : events) {
            perType.merge(e.getEventType().getName(), 1, Integer::sum);
        }
        System.out.println("\nrecording: " + events.length + " events of " + perType.size() + " types: " + perType);

        ProcessTrack process = new ProcessTrack(4242, "bench", 7);
        TimeMapping time = TimeMapping.monotonic(ClockReader.realtimeMinusMonotonic());
        mapper = new JfrEventMapper(new DescribedTracks(process, true, Map.of(), Set.of()), time,
                new SequenceWriter(new DiscardingOut(), time.clockId(), MAX_INTERNED),
                type -> new SequenceWriter(new DiscardingOut(), time.clockId(), MAX_INTERNED));
        // Steady state: every track described, every name interned before measuring.
        for (RecordedEvent e : events) {
            mapper.write(e);
        }
    }

    private static void work() {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        Object lock = new Object();
        int i = 0;
        while (System.nanoTime() < end) {
            List<byte[]> garbage = DemoRecording.allocateUnder(lock);
            RequestEvent request = new RequestEvent();
            request.begin();
            request.path = "/items/" + (i++ % 16);
            request.status = 200;
            request.bytes = garbage.size() * 256L;
            request.commit();
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    @Benchmark
    public void mapOneEvent() {
        RecordedEvent e = events[next];
        next = next + 1 == events.length ? 0 : next + 1;
        mapper.write(e);
    }

    /** Packets written into one heap buffer and dropped: what the mapper costs, not where its packets go. */
    private static final class DiscardingOut implements PacketOut, SpaceProvider {
        private static final int CAPACITY = 4 * 1024 * 1024;
        private final ByteBuffer buffer = ByteBuffer.allocate(CAPACITY).order(ByteOrder.LITTLE_ENDIAN);
        private final ProtoWriter proto = new ProtoWriter(this);

        @Override
        public ProtoWriter beginPacket() {
            proto.reset(buffer, 0, CAPACITY);
            proto.beginFrame();
            return proto;
        }

        @Override
        public void endPacket() {
            proto.endNested();
        }

        @Override
        public void makeRoom(ProtoWriter writer, int needed) {
            throw new IllegalStateException("a benchmark packet over " + CAPACITY + " bytes");
        }

        @Override
        public void patchSize(ProtoWriter writer, int level, int size) {
            throw new IllegalStateException("a benchmark packet never spans fragments");
        }
    }
}
