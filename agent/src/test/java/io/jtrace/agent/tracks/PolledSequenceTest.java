package io.jtrace.agent.tracks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.agent.trackevent.RecordingContext;
import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.protos.CounterDescriptor;
import io.jtrace.protos.TracePacket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A polling source's sequence under a full SMB: nothing it writes after a loss is undecodable (the
 * header is written again before the next event, and while it cannot be, no event is written), and a
 * counter value lost to the full SMB is written again rather than remembered as written.
 */
class PolledSequenceTest {
    private static final ProcessTrack PROCESS = new ProcessTrack(1, "test", 5);

    @TempDir
    Path dir;

    private RecordingContext context;
    private PolledSequence sequence;
    private CounterSet counters;

    @BeforeEach
    void open() throws Exception {
        context = new RecordingContext(dir, 4096);
        sequence = new PolledSequence(PROCESS, context);
        counters = new CounterSet(sequence);
        sequence.open();
    }

    @AfterEach
    void close() throws Exception {
        context.close();
    }

    /**
     * Sets counter "c" to 1, 2, 3... until a value is dropped: the SMB's chunks are freed only by
     * {@link RecordingContext#drain}. Returns the value dropped.
     */
    private long fillUntilADrop() {
        long value = 0;
        while (true) {
            long drops = context.droppedPackets();
            counters.set("c", CounterDescriptor.Unit.UNIT_COUNT, 1_000 + value, ++value);
            if (context.droppedPackets() > drops) {
                return value;
            }
        }
    }

    @Test
    void afterALossEveryEventFollowsANewHeaderAndLostCounterValuesAreWrittenAgain() throws Exception {
        long lost = fillUntilADrop();
        context.drain();
        // Same sample, no beginSample(): the loss happened in the middle of it. The lost value is set
        // again (a sampler whose source did not change), then a new one.
        counters.set("c", CounterDescriptor.Unit.UNIT_COUNT, 1_000_000, lost);
        counters.set("c", CounterDescriptor.Unit.UNIT_COUNT, 1_000_001, lost + 1);
        sequence.close();

        List<TracePacket> packets = context.read();
        List<String> undecodable = new ArrayList<>();
        boolean valid = false;
        List<Long> values = new ArrayList<>();
        for (TracePacket p : packets) {
            if (p.getPreviousPacketDropped() != 0) {
                valid = false;
            }
            if ((p.getSequenceFlags() & 1) != 0) {
                valid = true;
            }
            if ((p.getSequenceFlags() & 2) != 0) {
                if (!valid) {
                    undecodable.add(p.toString());
                }
                values.add(p.getTrackEvent().getCounterValue());
            }
        }
        assertTrue(packets.stream().anyMatch(p -> p.getPreviousPacketDropped() != 0), "the loss is reported");
        assertEquals(List.of(), undecodable, "packets trace_processor would skip");
        assertEquals(List.of(lost, lost + 1), values.subList(values.size() - 2, values.size()),
                "the value lost to the full SMB is written when it can be, not taken as written");
    }

    /**
     * A loss in the middle of a sample starts a new epoch at the next event. A track described before
     * the loss is described again in it before its next event, or that event would be on a track its
     * epoch never named (a ring that overwrote the older descriptor leaves it on no track at all).
     */
    @Test
    void aTrackWrittenAfterALossInTheSameSampleIsDescribedAgainFirst() throws Exception {
        fillUntilADrop();
        context.drain();
        // Same sample, no beginSample(): the first look at the track after the loss.
        counters.set("c", CounterDescriptor.Unit.UNIT_COUNT, 1_000_000, -1);
        sequence.close();

        DecodedSequences trace = new DecodedSequences(context.read());
        assertEquals(List.of(), trace.undecodable(), "events on a track not described in their epoch");
        long track = trace.track(PROCESS.uuid(), "c");
        assertEquals(2, trace.descriptors(track).size(), "described at first and again after the loss");
        List<Number> written = trace.counterValues(track);
        assertEquals(-1L, written.get(written.size() - 1).longValue(), "the value after the loss is on the track");
    }
}
