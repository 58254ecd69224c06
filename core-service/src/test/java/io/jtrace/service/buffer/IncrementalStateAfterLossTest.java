package io.jtrace.service.buffer;

import static io.jtrace.service.buffer.BufferTesting.CHUNK_BYTES;
import static io.jtrace.service.buffer.BufferTesting.TRUSTED_IDENTITY;
import static io.jtrace.service.buffer.BufferTesting.commitPadded;
import static io.jtrace.service.buffer.BufferTesting.dropMarked;
import static io.jtrace.service.buffer.BufferTesting.names;
import static io.jtrace.service.buffer.BufferTesting.stats;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.protos.ClockSnapshot;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackDescriptor;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.abi.ChunkHeader;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * After a sequence loses data, trace_processor skips its packets that need incremental state until one
 * clears it. The read-out keeps those packets out of the trace and counts them, so a file never holds
 * bytes its importer cannot use, whatever the framing and the producer's trust.
 */
class IncrementalStateAfterLossTest {
    private static final int CLEARED = 1;
    private static final int NEEDS = 2;

    private static TracePacket flagged(String name, int flags) {
        TracePacket.Builder b = TracePacket.newBuilder().setTrackEvent(TrackEvent.newBuilder().setName(name));
        if (flags != 0) {
            b.setSequenceFlags(flags);
        }
        return b.build();
    }

    private static Supplier<ChunkPayload> framing(boolean fileFramed) {
        return fileFramed ? ChunkPayload::fileFramedChunk : ChunkPayload::chunk;
    }

    /** Everything stored, read as after the session ended, with a trusted (in-process) producer's identity. */
    private static List<TracePacket> readTrusted(TraceBuffer buffer) {
        return BufferTesting.readAllWith(buffer, TRUSTED_IDENTITY);
    }

    private static List<TracePacket> read(TraceBuffer buffer, boolean trusted) {
        return trusted ? readTrusted(buffer) : BufferTesting.read(buffer, true).packets();
    }

    @ParameterizedTest(name = "file-framed {0}")
    @ValueSource(booleans = {false, true})
    void aRingThatOverwroteASequencesClearedPacketKeepsOnlyWhatNeedsNoStateUntilTheNextClear(boolean fileFramed) {
        for (boolean trusted : new boolean[] {false, true}) {
            Supplier<ChunkPayload> chunk = framing(fileFramed);
            TraceBuffer buffer = new TraceBuffer(3 * CHUNK_BYTES, TraceBuffer.Policy.RING);
            commitPadded(buffer, 1, 0, chunk.get().packet(flagged("c0", CLEARED)).packet(flagged("n0", NEEDS)));
            commitPadded(buffer, 1, 1, chunk.get().packet(flagged("n1", NEEDS)).packet(flagged("n1b", NEEDS)));
            commitPadded(buffer, 1, 2, chunk.get().packet(flagged("p2", 0)).packet(flagged("n2", NEEDS)));
            // Overwrites chunk 0, and with it c0: n1, n1b and n2 reference names nobody can read any more.
            commitPadded(buffer, 1, 3, chunk.get().packet(flagged("c3", CLEARED)).packet(flagged("n3", NEEDS))
                    .packet(flagged("n3b", NEEDS)).packet(flagged("n3c", NEEDS)));

            List<TracePacket> packets = read(buffer, trusted);

            String framing = "file-framed " + fileFramed + ", trusted " + trusted;
            assertEquals(List.of("p2", "c3", "n3", "n3b", "n3c"), names(packets), framing);
            assertEquals(3, stats(buffer).getPacketsWithoutIncrementalState(), framing);
            assertTrue(dropMarked(packets.get(0)), "p2 follows the overwritten chunk: " + framing);
            assertTrue(dropMarked(packets.get(1)), "c3 follows the packets left out: " + framing);
            assertFalse(dropMarked(packets.get(2)), framing);
        }
    }

    @Test
    void aWriterThatClearsItsStateRightAfterItsOwnDropLosesNothingMore() {
        TraceBuffer buffer = new TraceBuffer(1 << 20, TraceBuffer.Policy.RING);
        commitPadded(buffer, 1, 0, ChunkPayload.chunk().packet(flagged("c0", CLEARED)).packet(flagged("n0", NEEDS))
                .dropMarker().packet(flagged("c1", CLEARED)).packet(flagged("n1", NEEDS)));

        List<TracePacket> packets = BufferTesting.read(buffer, true).packets();

        assertEquals(List.of("c0", "n0", "c1", "n1"), names(packets));
        assertTrue(dropMarked(packets.get(2)));
        assertEquals(0, stats(buffer).getPacketsWithoutIncrementalState());
    }

    @Test
    void packetsNeedingStateAfterAWriterDropAreLeftOutUntilTheWriterClearsIt() {
        TraceBuffer buffer = new TraceBuffer(1 << 20, TraceBuffer.Policy.RING);
        commitPadded(buffer, 1, 0, ChunkPayload.chunk().packet(flagged("c0", CLEARED)).dropMarker()
                .packet(flagged("n0", NEEDS)).packet(flagged("n1", NEEDS)));
        commitPadded(buffer, 1, 1, ChunkPayload.chunk().packet(flagged("c1", CLEARED)).packet(flagged("n2", NEEDS)));

        List<TracePacket> packets = BufferTesting.read(buffer, true).packets();

        assertEquals(List.of("c0", "c1", "n2"), names(packets));
        assertTrue(dropMarked(packets.get(1)));
        assertEquals(2, stats(buffer).getPacketsWithoutIncrementalState());
    }

    @Test
    void aSequenceThatOpensWithAClearAndLosesNothingKeepsEveryPacket() {
        TraceBuffer buffer = new TraceBuffer(1 << 20, TraceBuffer.Policy.RING);
        commitPadded(buffer, 1, 0, ChunkPayload.chunk().packet(flagged("c0", CLEARED)).packet(flagged("n0", NEEDS))
                .packet(flagged("p0", 0)));

        assertEquals(List.of("c0", "n0", "p0"), names(BufferTesting.read(buffer, true).packets()));
        assertEquals(0, stats(buffer).getPacketsWithoutIncrementalState());
    }

    /**
     * trace_processor starts every sequence without incremental state: a sequence whose first chunks
     * never reached the buffer (no loss the buffer could see) keeps nothing that needs state before its
     * first clear.
     */
    @Test
    void aSequenceKeepsNothingThatNeedsStateBeforeItsFirstClear() {
        TraceBuffer buffer = new TraceBuffer(1 << 20, TraceBuffer.Policy.RING);
        commitPadded(buffer, 1, 5, ChunkPayload.chunk().packet(flagged("n0", NEEDS)).packet(flagged("p0", 0))
                .packet(flagged("n1", NEEDS)).packet(flagged("c1", CLEARED)).packet(flagged("n2", NEEDS)));

        assertEquals(List.of("p0", "c1", "n2"), names(BufferTesting.read(buffer, true).packets()));
        assertEquals(2, stats(buffer).getPacketsWithoutIncrementalState());
    }

    /**
     * A trusted writer (this process's) opens its sequence in chunk 0: read from there, nothing is missing
     * and its packets keep the fast path. One whose first stored chunk is a later one lost its start.
     */
    @Test
    void aTrustedSequenceReadFromItsChunkZeroLacksNothingButOneMissingItsStartWaitsForAClear() {
        TraceBuffer whole = new TraceBuffer(1 << 20, TraceBuffer.Policy.RING);
        commitPadded(whole, 1, 0, ChunkPayload.fileFramedChunk().packet(flagged("n0", NEEDS)).packet(flagged("n1", NEEDS)));
        assertEquals(List.of("n0", "n1"), names(readTrusted(whole)));
        assertEquals(0, stats(whole).getPacketsWithoutIncrementalState());

        TraceBuffer headless = new TraceBuffer(1 << 20, TraceBuffer.Policy.RING);
        commitPadded(headless, 1, 3, ChunkPayload.fileFramedChunk().packet(flagged("n0", NEEDS))
                .packet(flagged("c0", CLEARED)).packet(flagged("n1", NEEDS)));
        assertEquals(List.of("c0", "n1"), names(readTrusted(headless)));
        assertEquals(1, stats(headless).getPacketsWithoutIncrementalState());
    }

    /** Packets trace_processor reads before it looks at their flags are kept whatever their flags say. */
    @Test
    void aClockSnapshotIsKeptEvenWhenFlaggedAsNeedingState() {
        TraceBuffer buffer = new TraceBuffer(1 << 20, TraceBuffer.Policy.RING);
        TracePacket snapshot = TracePacket.newBuilder().setSequenceFlags(NEEDS).setClockSnapshot(
                ClockSnapshot.newBuilder().addClocks(ClockSnapshot.Clock.newBuilder()
                        .setClockId(6).setTimestamp(1))).build();
        commitPadded(buffer, 1, 0, ChunkPayload.chunk().packet(snapshot).packet(flagged("n0", NEEDS)));

        List<TracePacket> packets = BufferTesting.read(buffer, true).packets();
        assertEquals(1, packets.size());
        assertTrue(packets.get(0).hasClockSnapshot());
        assertEquals(1, stats(buffer).getPacketsWithoutIncrementalState(), "n0: no clear yet");
    }

    /**
     * A chunk flagged NEEDS_INCREMENTAL_STATE (a track_event writer's: its small events carry no flags)
     * makes every packet in it need the state unless it clears it, is read first or describes a track
     * with nothing that uses the state: after a loss the
     * unflagged ones wait for the clear as flagged ones do. trace_processor would take them for packets
     * that need nothing and misread their deltas and interned names.
     */
    @ParameterizedTest(name = "file-framed {0}")
    @ValueSource(booleans = {false, true})
    void inAChunkFlaggedAsNeedingStateEveryPacketThatDoesNotClearItWaitsForTheClearAfterALoss(boolean fileFramed) {
        for (boolean trusted : new boolean[] {false, true}) {
            Supplier<ChunkPayload> chunk = () -> framing(fileFramed).get().flags(ChunkHeader.FLAG_NEEDS_INCREMENTAL_STATE);
            TraceBuffer buffer = new TraceBuffer(3 * CHUNK_BYTES, TraceBuffer.Policy.RING);
            TracePacket snapshot = TracePacket.newBuilder().setClockSnapshot(ClockSnapshot.newBuilder()
                    .addClocks(ClockSnapshot.Clock.newBuilder().setClockId(6).setTimestamp(1))).build();
            commitPadded(buffer, 1, 0, chunk.get().packet(flagged("c0", CLEARED)).packet(flagged("e0", 0)));
            commitPadded(buffer, 1, 1, chunk.get().packet(flagged("e1", 0)).packet(snapshot));
            TracePacket track = TracePacket.newBuilder().setTrackDescriptor(TrackDescriptor.newBuilder().setUuid(5)
                    .setName("async")).build();
            TracePacket timedTrack = track.toBuilder().setTimestamp(9).build();
            commitPadded(buffer, 1, 2, chunk.get().packet(flagged("e2", 0)).dropMarker().packet(flagged("e2b", 0))
                    .packet(track).packet(timedTrack));
            // Overwrites chunk 0 and its clear.
            commitPadded(buffer, 1, 3, chunk.get().packet(flagged("e3", 0)).packet(flagged("c3", CLEARED))
                    .packet(flagged("e3b", 0)).packet(flagged("e3c", 0)));

            List<TracePacket> packets = read(buffer, trusted);

            String framing = "file-framed " + fileFramed + ", trusted " + trusted;
            assertEquals(List.of("", "", "c3", "e3b", "e3c"), names(packets), framing);
            assertTrue(packets.get(0).hasClockSnapshot(), "read before the flags: " + framing);
            assertEquals(track.getTrackDescriptor(), packets.get(1).getTrackDescriptor(),
                    "a track description that uses no state: other sequences' events may name it: " + framing);
            assertFalse(packets.get(1).hasTimestamp(), "one with a timestamp on the lost clock waits: " + framing);
            assertEquals(5, stats(buffer).getPacketsWithoutIncrementalState(), "e1, e2, e2b, the timed track, e3: " + framing);
            assertTrue(dropMarked(packets.get(2)), "the clear follows the packets left out: " + framing);
            assertFalse(dropMarked(packets.get(3)), framing);
        }
    }

    /** Without the chunk's flag an unflagged packet needs nothing: a loss does not hold it back. */
    @Test
    void inAnUnflaggedChunkAPacketWithoutFlagsGoesOutAfterALoss() {
        TraceBuffer buffer = new TraceBuffer(1 << 20, TraceBuffer.Policy.RING);
        commitPadded(buffer, 1, 0, ChunkPayload.chunk().packet(flagged("c0", CLEARED)).dropMarker()
                .packet(flagged("p0", 0)).packet(flagged("n0", NEEDS)));

        assertEquals(List.of("c0", "p0"), names(BufferTesting.read(buffer, true).packets()));
        assertEquals(1, stats(buffer).getPacketsWithoutIncrementalState());
    }

    /** Flags trace_processor does not act on say nothing about a packet: they cannot make it read first. */
    @Test
    void onlyTheTwoKnownSequenceFlagsAreRead() {
        byte[] unknownBits = {0x68, (byte) 0xFE, 0x7F};
        assertEquals(NEEDS, SequenceFlags.of(unknownBits, 0, unknownBits.length));
        byte[] snapshot = TracePacket.newBuilder().setSequenceFlags(NEEDS).setClockSnapshot(
                ClockSnapshot.getDefaultInstance()).build().toByteArray();
        assertEquals(SequenceFlags.USABLE_WITHOUT_STATE, SequenceFlags.of(snapshot, 0, snapshot.length));
    }

    /** A non-repeated field's last occurrence wins, in trace_processor as in any protobuf reader. */
    @Test
    void theLastSequenceFlagsOfAPacketAreTheOnesThatCount() {
        byte[] clearedThenNeeds = {0x68, 1, 0x68, 2};
        assertEquals(NEEDS, SequenceFlags.of(clearedThenNeeds, 0, clearedThenNeeds.length));
        byte[] legacyClearedThenNot = {(byte) 0xC8, 0x02, 1, (byte) 0xC8, 0x02, 0, 0x68, 2};
        assertEquals(NEEDS, SequenceFlags.of(legacyClearedThenNot, 0, legacyClearedThenNot.length));
    }

    @Test
    void theLegacyIncrementalStateClearedFieldEndsTheWaitToo() {
        TraceBuffer buffer = new TraceBuffer(2 * CHUNK_BYTES, TraceBuffer.Policy.RING);
        commitPadded(buffer, 1, 0, ChunkPayload.chunk().packet(flagged("c0", CLEARED)));
        commitPadded(buffer, 1, 1, ChunkPayload.chunk().packet(flagged("n1", NEEDS)));
        TracePacket legacy = flagged("legacy", NEEDS).toBuilder().setIncrementalStateCleared(true).build();
        commitPadded(buffer, 1, 2, ChunkPayload.chunk().packet(legacy).packet(flagged("n2", NEEDS)));

        assertEquals(List.of("legacy", "n2"), names(BufferTesting.read(buffer, true).packets()));
        assertEquals(1, stats(buffer).getPacketsWithoutIncrementalState());
    }

    @Test
    void sequenceFlagsAreFoundAmongOtherFieldsAndAMalformedPacketHasNone() {
        byte[] packet = TracePacket.newBuilder().setTimestamp(1L << 40).setTrackEvent(TrackEvent.newBuilder()
                .setName("x").setDoubleCounterValue(1.5)).setTimestampClockId(64).setSequenceFlags(NEEDS).build()
                .toByteArray();
        assertEquals(NEEDS, SequenceFlags.of(packet, 0, packet.length));
        byte[] shifted = new byte[packet.length + 3];
        System.arraycopy(packet, 0, shifted, 3, packet.length);
        assertEquals(NEEDS, SequenceFlags.of(shifted, 3, packet.length));
        byte[] truncated = Arrays.copyOf(packet, packet.length - 1);
        assertEquals(0, SequenceFlags.of(truncated, 0, truncated.length));
        byte[] badWireType = {(byte) 0x6B, 2};
        assertEquals(0, SequenceFlags.of(badWireType, 0, badWireType.length));
    }
}
