package io.jtrace.benchmarks.jfrparse;

import io.jtrace.jfr.file.JfrToTrace;
import java.nio.file.Files;
import java.nio.file.Path;
import jdk.jfr.consumer.RecordingFile;
import org.openjdk.jmc.common.IMCThread;
import org.openjdk.jmc.common.item.IItem;
import org.openjdk.jmc.common.item.IItemCollection;
import org.openjdk.jmc.common.item.IItemIterable;
import org.openjdk.jmc.common.item.IMemberAccessor;
import org.openjdk.jmc.common.unit.IQuantity;
import org.openjdk.jmc.flightrecorder.JfrAttributes;
import org.openjdk.jmc.flightrecorder.JfrLoaderToolkit;

/** The three ways over one recording that {@link ParseComparison} compares; each returns the events it saw. */
enum Parser {
    /** {@code jtrace convert}: parse with the JDK's {@code RecordingFile}, map, write a trace. */
    CONVERT {
        @Override
        long run(Path recording, Path scratch) throws Exception {
            Path out = scratch.resolve("convert-" + ProcessHandle.current().pid() + ".pftrace");
            try {
                return new JfrToTrace(false, null).convert(recording, out).eventsWritten();
            } finally {
                Files.deleteIfExists(out);
            }
        }
    },
    /** The JDK's parser alone: every event read (its fields decoded) and dropped. */
    RECORDINGFILE {
        @Override
        long run(Path recording, Path scratch) throws Exception {
            long n = 0;
            try (RecordingFile f = new RecordingFile(recording)) {
                while (f.hasMoreEvents()) {
                    sink = f.readEvent();
                    n++;
                }
            }
            return n;
        }
    },
    /**
     * JMC's parser: {@code JfrLoaderToolkit.loadEvents} builds the whole recording in memory; then
     * every item is visited and its start time and thread read. The collection is kept in {@link #held}
     * so the child can weigh what it retains.
     */
    JMC {
        @Override
        long run(Path recording, Path scratch) throws Exception {
            IItemCollection items = JfrLoaderToolkit.loadEvents(recording.toFile());
            long n = 0;
            long times = 0;
            for (IItemIterable ofType : items) {
                IMemberAccessor<IQuantity, IItem> start = JfrAttributes.START_TIME.getAccessor(ofType.getType());
                IMemberAccessor<IMCThread, IItem> thread = JfrAttributes.EVENT_THREAD.getAccessor(ofType.getType());
                for (IItem item : ofType) {
                    if (start != null) {
                        times += start.getMember(item).longValue();
                    }
                    if (thread != null) {
                        sink = thread.getMember(item);
                    }
                    n++;
                }
            }
            sink = times;
            held = items;
            return n;
        }
    };

    static volatile Object sink;
    /** What a parser keeps once it has run (JMC's collection), so its retained heap can be measured. */
    static volatile Object held;

    abstract long run(Path recording, Path scratch) throws Exception;
}
