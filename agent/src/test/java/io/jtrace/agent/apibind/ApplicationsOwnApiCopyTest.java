package io.jtrace.agent.apibind;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.jtrace.agent.apibind.app.OwnCopyApplication;
import io.jtrace.agent.trackevent.RecordingContext;
import io.jtrace.agent.trackevent.TrackEventDataSource;
import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.api.Category;
import io.jtrace.producer.DataSourceInstance;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.DebugAnnotation;
import io.jtrace.protos.EventName;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackEvent;
import io.jtrace.protos.TrackEventConfig;
import java.lang.ref.WeakReference;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An application whose class loader loads its own copy of the API (as a servlet container's web
 * application does) is traced like one that shares the agent's: its copy is bound as it initializes,
 * its categories follow the sessions' filters, and every kind of event reaches the trace whole.
 */
class ApplicationsOwnApiCopyTest {
    @TempDir
    Path dir;

    @Test
    void eventsOfAnOwnCopyOfTheApiAreRecordedAsTheAgentsOwn() throws Exception {
        try (URLClassLoader childFirst = new URLClassLoader("web-app", new URL[] {location(Category.class), location(OwnCopyApplication.class)},
                ClassLoader.getPlatformClassLoader());
             RecordingContext context = new RecordingContext(dir, 1024 * 1024)) {
            TrackEventDataSource source = new TrackEventDataSource(new ProcessTrack(1, "test", 23));
            @SuppressWarnings("unchecked")
            Function<String, Object> app = (Function<String, Object>) childFirst
                    .loadClass(OwnCopyApplication.class.getName()).getConstructor().newInstance();
            assertNotSame(Category.class, app.apply("api class"), "the application has a copy of its own");
            assertEquals(false, app.apply("prepare"), "no session yet");

            DataSourceInstance session = source.create(context, DataSourceConfig.newBuilder().setName("track_event")
                    .setTrackEventConfig(TrackEventConfig.newBuilder().addEnabledCategories("own-copy")).build());
            session.start();
            assertArrayEquals(new boolean[] {true, false}, (boolean[]) app.apply("enabled"),
                    "a session started after the copy was bound enables exactly its categories there");
            long[] ids = (long[]) app.apply("emit");
            session.stop();
            assertArrayEquals(new boolean[] {false, false}, (boolean[]) app.apply("enabled"), "the session's end disables them");

            Recorded trace = new Recorded(context.read(), ids[0]);
            assertEquals(List.of("B own-copy/plain", "E", "B own-copy/closed", "E", "B own-copy/annotated", "E"),
                    trace.onThreadTrack);
            assertEquals(List.of("B own-copy/async", "E"), trace.onAsyncTrack, "the async slice on the copy's track, by its uuid");
            assertEquals(List.of("n=7", "s=text", "d=1.5", "b=true"), trace.annotations.get("own-copy/annotated"));
            assertEquals(List.of(ids[1]), trace.flows.get("own-copy/annotated"));
            assertEquals(List.of(-ids[1]), trace.flows.get("own-copy/async"), "terminating");
            assertEquals(Map.of("own-copy counter", List.of(42L), TrackEventDataSource.LOST_EVENTS_TRACK, List.of(0L)), trace.counters);
            assertFalse(trace.names.contains("own-copy/never"), "a category no session enables records nothing");
            assertEquals(List.of("own-copy"), trace.categories);
        }
    }

    @Test
    void theAgentDoesNotKeepAnUndeployedApplicationsClassLoaderAlive() throws Exception {
        WeakReference<ClassLoader> webApp;
        try (RecordingContext context = new RecordingContext(dir, 1024 * 1024)) {
            TrackEventDataSource source = new TrackEventDataSource(new ProcessTrack(1, "test", 29));
            DataSourceInstance session = source.create(context, DataSourceConfig.newBuilder().setName("track_event")
                    .setTrackEventConfig(TrackEventConfig.newBuilder().addEnabledCategories("own-copy")).build());
            session.start();
            webApp = deployRunAndUndeploy();
            session.stop();
        }
        // The application ran on a thread of its own, now ended: its thread-local builders are gone too.
        for (int i = 0; i < 50 && webApp.get() != null; i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertNull(webApp.get(), "the web application's class loader was collected");
    }

    private static WeakReference<ClassLoader> deployRunAndUndeploy() throws Exception {
        URLClassLoader childFirst = new URLClassLoader("web-app", new URL[] {location(Category.class), location(OwnCopyApplication.class)},
                ClassLoader.getPlatformClassLoader());
        AtomicReference<Object> emitted = new AtomicReference<>();
        Thread worker = new Thread(() -> {
            try {
                @SuppressWarnings("unchecked")
                Function<String, Object> app = (Function<String, Object>) childFirst
                        .loadClass(OwnCopyApplication.class.getName()).getConstructor().newInstance();
                app.apply("prepare");
                emitted.set(app.apply("emit"));
            } catch (ReflectiveOperationException | RuntimeException e) {
                emitted.set(e);
            }
        }, "web-app-worker");
        worker.start();
        worker.join();
        assertInstanceOf(long[].class, emitted.get(), "the application ran");
        childFirst.close();
        return new WeakReference<>(childFirst);
    }

    private static URL location(Class<?> c) {
        return c.getProtectionDomain().getCodeSource().getLocation();
    }

    /** What the session recorded, names resolved through each sequence's interned names. */
    private static final class Recorded {
        final List<String> onThreadTrack = new ArrayList<>();
        final List<String> onAsyncTrack = new ArrayList<>();
        final Map<String, List<String>> annotations = new HashMap<>();
        final Map<String, List<Long>> flows = new HashMap<>();
        final Map<String, List<Long>> counters = new HashMap<>();
        final List<String> names = new ArrayList<>();
        final List<String> categories = new ArrayList<>();

        Recorded(List<TracePacket> packets, long asyncTrackUuid) {
            Map<Integer, Map<Long, String>> internedNames = new HashMap<>();
            Map<Long, String> trackNames = new HashMap<>();
            for (TracePacket p : packets) {
                if (p.hasTrackDescriptor()) {
                    trackNames.put(p.getTrackDescriptor().getUuid(), p.getTrackDescriptor().getName());
                }
                Map<Long, String> seqNames = internedNames.computeIfAbsent(p.getTrustedPacketSequenceId(), k -> new HashMap<>());
                for (EventName n : p.getInternedData().getEventNamesList()) {
                    seqNames.put(n.getIid(), n.getName());
                }
                p.getInternedData().getEventCategoriesList().forEach(c -> categories.add(c.getName()));
                if (!p.hasTrackEvent()) {
                    continue;
                }
                TrackEvent e = p.getTrackEvent();
                if (e.getType() == TrackEvent.Type.TYPE_COUNTER) {
                    counters.computeIfAbsent(trackNames.get(e.getTrackUuid()), k -> new ArrayList<>()).add(e.getCounterValue());
                    continue;
                }
                String name = e.hasName() ? e.getName() : seqNames.get(e.getNameIid());
                if (e.getType() != TrackEvent.Type.TYPE_SLICE_END) {
                    names.add(name);
                }
                String entry = e.getType() == TrackEvent.Type.TYPE_SLICE_END ? "E" : "B " + name;
                (e.getTrackUuid() == asyncTrackUuid ? onAsyncTrack : onThreadTrack).add(entry);
                for (DebugAnnotation a : e.getDebugAnnotationsList()) {
                    annotations.computeIfAbsent(name, k -> new ArrayList<>()).add(a.getName() + "=" + value(a));
                }
                e.getFlowIdsList().forEach(f -> flows.computeIfAbsent(name, k -> new ArrayList<>()).add(f));
                e.getTerminatingFlowIdsList().forEach(f -> flows.computeIfAbsent(name, k -> new ArrayList<>()).add(-f));
            }
        }

        private static String value(DebugAnnotation a) {
            if (a.hasStringValue()) {
                return a.getStringValue();
            }
            if (a.hasDoubleValue()) {
                return String.valueOf(a.getDoubleValue());
            }
            if (a.hasBoolValue()) {
                return String.valueOf(a.getBoolValue());
            }
            return String.valueOf(a.getIntValue());
        }
    }
}
