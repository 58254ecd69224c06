package io.jtrace.cli;

import io.jtrace.producer.DataSource;
import io.jtrace.producer.DataSourceContext;
import io.jtrace.producer.DataSourceInstance;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.TracePacket;
import io.jtrace.shm.proto.ProtoWriter;
import io.jtrace.shm.writer.TraceWriter;

/**
 * A data source that writes its packets in bursts, each only once the test releases it
 * ({@link #release}): {@code track_event { track_uuid = TRACK, name = "burst-<b>-<i>", categories =
 * <padding> }} at CLOCK_MONOTONIC now. A test paces the bursts by what reached the trace file, so it
 * can push many buffers' worth through one buffer without depending on timing.
 */
public final class BurstDataSource implements DataSource {
    public static final long TRACK = 77;

    private final String name;
    private final int bursts;
    private final int packetsPerBurst;
    private final int padding;
    private volatile int released;
    private volatile int written;

    public BurstDataSource(String name, int bursts, int packetsPerBurst, int padding) {
        this.name = name;
        this.bursts = bursts;
        this.packetsPerBurst = packetsPerBurst;
        this.padding = padding;
    }

    public static String packetName(int burst, int index) {
        return "burst-" + burst + "-" + index;
    }

    /** Lets bursts up to {@code count} (exclusive) be written. */
    public void release(int count) {
        released = Math.min(count, bursts);
    }

    /** True if {@code packet} is this source's, by its track. */
    public static boolean isBurstPacket(TracePacket packet) {
        return packet.hasTrackEvent() && packet.getTrackEvent().getTrackUuid() == TRACK;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public DataSourceInstance create(DataSourceContext context, DataSourceConfig config) {
        return new DataSourceInstance() {
            private TraceWriter writer;
            private DataSourceContext.Cancellable task;

            @Override
            public void start() {
                writer = context.newTraceWriter();
                task = context.every(5, this::writeReleased);
                writeReleased();
            }

            private void writeReleased() {
                while (written < released) {
                    int b = written;
                    for (int i = 0; i < packetsPerBurst; i++) {
                        ProtoWriter p = writer.beginPacket();
                        p.varint(TracePacket.TIMESTAMP_FIELD_NUMBER, System.nanoTime());
                        p.varint(TracePacket.TIMESTAMP_CLOCK_ID_FIELD_NUMBER, 3);
                        p.beginNested(TracePacket.TRACK_EVENT_FIELD_NUMBER);
                        p.varint(11, TRACK); // track_uuid
                        p.varint(9, 3); // type: instant
                        p.string(23, packetName(b, i)); // name
                        p.string(22, "p".repeat(padding)); // categories
                        p.endNested();
                        writer.endPacket();
                    }
                    writer.flush();
                    written = b + 1;
                }
            }

            @Override
            public void flush() {
                writer.flush();
            }

            @Override
            public void stop() {
                task.cancel();
                writer.close();
            }
        };
    }
}
