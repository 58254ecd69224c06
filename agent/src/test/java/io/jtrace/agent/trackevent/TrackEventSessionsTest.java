package io.jtrace.agent.trackevent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.api.Category;
import io.jtrace.api.Slice;
import io.jtrace.api.TrackEvent;
import io.jtrace.producer.DataSourceInstance;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.EventName;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackEventConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Up to four sessions record track_event at once, each exactly the categories its config enables, from
 * every thread; a fifth gets nothing; stopping one leaves the others recording.
 */
class TrackEventSessionsTest {
    private static final Category A = Category.of("sessions-a");
    private static final Category B = Category.of("sessions-b1");
    private static final Category C = Category.of("sessions-c");

    @TempDir
    Path dir;

    @Test
    void fourSessionsEachGetExactlyTheirCategoriesAndAFifthGetsNone() throws Exception {
        List<RecordingContext> contexts = new ArrayList<>();
        try {
            for (int i = 0; i < 5; i++) {
                contexts.add(new RecordingContext(Files.createDirectories(dir.resolve("s" + i)), 1024 * 1024));
            }
            TrackEventDataSource source = new TrackEventDataSource(new ProcessTrack(1, "test", 11));
            List<DataSourceInstance> instances = List.of(
                    start(source, contexts.get(0), TrackEventConfig.newBuilder().addEnabledCategories("sessions-a")),
                    start(source, contexts.get(1), TrackEventConfig.newBuilder().addEnabledCategories("sessions-b*")),
                    start(source, contexts.get(2), TrackEventConfig.newBuilder().addDisabledCategories("sessions-a")),
                    start(source, contexts.get(3), TrackEventConfig.newBuilder()),
                    start(source, contexts.get(4), TrackEventConfig.newBuilder()));

            emit("first", 3);
            Thread other = new Thread(() -> emit("other", 2), "other-thread");
            other.start();
            other.join();
            instances.get(0).stop();
            assertTrue(A.isEnabled(), "sessions 3 still records sessions-a");
            emit("after", 1);
            for (int i = 1; i < 5; i++) {
                instances.get(i).stop();
            }
            assertFalse(A.isEnabled() || B.isEnabled() || C.isEnabled(), "no session left: every category off");

            assertEquals(names("sessions-a", "first", 3, "other", 2), sliceNames(contexts.get(0)));
            assertEquals(names("sessions-b1", "first", 3, "other", 2, "after", 1), sliceNames(contexts.get(1)));
            TreeSet<String> bAndC = names("sessions-b1", "first", 3, "other", 2, "after", 1);
            bAndC.addAll(names("sessions-c", "first", 3, "other", 2, "after", 1));
            assertEquals(bAndC, sliceNames(contexts.get(2)));
            TreeSet<String> all = new TreeSet<>(bAndC);
            all.addAll(names("sessions-a", "first", 3, "other", 2, "after", 1));
            assertEquals(all, sliceNames(contexts.get(3)));
            assertEquals(new TreeSet<>(), sliceNames(contexts.get(4)), "a fifth session gets no events");
        } finally {
            for (RecordingContext c : contexts) {
                c.close();
            }
        }
    }

    @Test
    void aThreadsOwnWriterInAStoppedSessionIsClosedAtItsNextEvent() throws Exception {
        try (RecordingContext first = new RecordingContext(Files.createDirectories(dir.resolve("first")), 1024 * 1024);
             RecordingContext second = new RecordingContext(Files.createDirectories(dir.resolve("second")), 1024 * 1024)) {
            TrackEventDataSource source = new TrackEventDataSource(new ProcessTrack(1, "test", 13));
            DataSourceInstance a = start(source, first, TrackEventConfig.newBuilder());
            DataSourceInstance b = start(source, second, TrackEventConfig.newBuilder());
            int before = source.ownedSequenceCount();
            TrackEvent.instant(C, "in both");
            assertEquals(before + 2, source.ownedSequenceCount(), "this thread owns a writer in each session");
            a.stop();
            TrackEvent.instant(C, "in the second only");
            assertEquals(before + 1, source.ownedSequenceCount(), "its writer in the stopped session is given back");
            b.stop();
        }
    }

    @Test
    void anEventBuiltWhileAnotherIsBeingBuiltKeepsItsOwnCategoryAndArguments() throws Exception {
        try (RecordingContext context = new RecordingContext(Files.createDirectories(dir.resolve("nested")), 1024 * 1024)) {
            TrackEventDataSource source = new TrackEventDataSource(new ProcessTrack(1, "test", 17));
            DataSourceInstance instance = start(source, context, TrackEventConfig.newBuilder().addEnabledCategories("sessions-a"));
            TrackEvent.event(A).arg("outer", innerCall()).begin("sessions-a/outer");
            TrackEvent.end(A);
            instance.stop();
            List<TracePacket> packets = context.read();
            List<String> args = new ArrayList<>();
            for (TracePacket p : packets) {
                if (p.hasTrackEvent()) {
                    p.getTrackEvent().getDebugAnnotationsList().forEach(d -> args.add(d.getName() + "=" + d.getIntValue()));
                }
            }
            assertEquals(List.of("inner=2", "outer=1"), args);
            assertEquals(List.of("sessions-a/inner", "sessions-a/outer"), new ArrayList<>(sliceNames(packets)));
        }
    }

    @Test
    void argumentsBeyondTheCapacityAreCountedAndAnAsyncSliceClosesOnItsTrack() throws Exception {
        try (RecordingContext context = new RecordingContext(Files.createDirectories(dir.resolve("args")), 1024 * 1024)) {
            TrackEventDataSource source = new TrackEventDataSource(new ProcessTrack(1, "test", 19));
            DataSourceInstance instance = start(source, context, TrackEventConfig.newBuilder().addEnabledCategories("sessions-a"));
            io.jtrace.api.Event e = TrackEvent.event(A);
            for (int i = 0; i < io.jtrace.api.Event.MAX_ARGS + 2; i++) {
                e.arg("a" + i, i);
            }
            e.instant("sessions-a/many");
            io.jtrace.api.AsyncTrack track = io.jtrace.api.AsyncTrack.named("request");
            try (Slice s = TrackEvent.event(A).on(track).slice("sessions-a/async")) {
                Thread.onSpinWait();
            }
            instance.stop();

            List<TracePacket> packets = context.read();
            List<String> args = new ArrayList<>();
            List<String> onTrack = new ArrayList<>();
            for (TracePacket p : packets) {
                io.jtrace.protos.TrackEvent te = p.getTrackEvent();
                if (te.getType() == io.jtrace.protos.TrackEvent.Type.TYPE_INSTANT) {
                    te.getDebugAnnotationsList().forEach(d -> args.add(d.getName() + "=" + d.getIntValue()));
                }
                if (te.getTrackUuid() == track.uuid()) {
                    onTrack.add(te.getType().name());
                }
            }
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < io.jtrace.api.Event.MAX_ARGS; i++) {
                expected.add("a" + i + "=" + i);
            }
            expected.add(EventExtras.DROPPED_ARGS + "=2");
            assertEquals(expected, args);
            assertEquals(List.of("TYPE_SLICE_BEGIN", "TYPE_SLICE_END"), onTrack, "the closer ends the slice on the async track");
        }
    }

    /** Traced code that runs while the caller's event is being built. */
    private static long innerCall() {
        TrackEvent.event(A).arg("inner", 2).begin("sessions-a/inner");
        TrackEvent.end(A);
        return 1;
    }

    private static DataSourceInstance start(TrackEventDataSource source, RecordingContext context,
                                            TrackEventConfig.Builder config) {
        DataSourceInstance instance = source.create(context,
                DataSourceConfig.newBuilder().setName("track_event").setTrackEventConfig(config).build());
        instance.start();
        return instance;
    }

    /** Slices "<category>/<prefix>-<i>": begin/end, try-with-resources and the event builder in turn. */
    private static void emit(String prefix, int count) {
        for (Category c : List.of(A, B, C)) {
            for (int i = 0; i < count; i++) {
                String name = c.name() + "/" + prefix + "-" + i;
                switch (i % 3) {
                    case 0 -> {
                        TrackEvent.begin(c, name);
                        TrackEvent.end(c);
                    }
                    case 1 -> {
                        try (Slice s = TrackEvent.slice(c, name)) {
                            Thread.onSpinWait();
                        }
                    }
                    default -> {
                        TrackEvent.event(c).arg("i", i).begin(name);
                        TrackEvent.event(c).end();
                    }
                }
            }
        }
    }

    private static TreeSet<String> names(String category, Object... prefixesAndCounts) {
        TreeSet<String> result = new TreeSet<>();
        for (int k = 0; k < prefixesAndCounts.length; k += 2) {
            for (int i = 0; i < (int) prefixesAndCounts[k + 1]; i++) {
                result.add(category + "/" + prefixesAndCounts[k] + "-" + i);
            }
        }
        return result;
    }

    /** Every slice begin's name, resolved through its sequence's interned names; ends must match begins. */
    private static TreeSet<String> sliceNames(RecordingContext context) throws Exception {
        return sliceNames(context.read());
    }

    private static TreeSet<String> sliceNames(List<TracePacket> packets) {
        Map<Integer, Map<Long, String>> interned = new HashMap<>();
        TreeSet<String> names = new TreeSet<>();
        int begins = 0;
        int ends = 0;
        for (TracePacket p : packets) {
            Map<Long, String> seq = interned.computeIfAbsent(p.getTrustedPacketSequenceId(), k -> new HashMap<>());
            for (EventName n : p.getInternedData().getEventNamesList()) {
                seq.put(n.getIid(), n.getName());
            }
            if (!p.hasTrackEvent()) {
                continue;
            }
            switch (p.getTrackEvent().getType()) {
                case TYPE_SLICE_BEGIN -> {
                    begins++;
                    names.add(p.getTrackEvent().hasName() ? p.getTrackEvent().getName() : seq.get(p.getTrackEvent().getNameIid()));
                }
                case TYPE_SLICE_END -> ends++;
                default -> { }
            }
        }
        assertEquals(begins, ends, "every begin has its end in the same session");
        assertEquals(begins, names.size(), "no slice twice");
        return names;
    }
}
