package io.jtrace.service.buffer;

import static io.jtrace.service.buffer.BufferTesting.BIG;
import static io.jtrace.service.buffer.BufferTesting.CHUNK_BYTES;
import static io.jtrace.service.buffer.BufferTesting.IDENTITY;
import static io.jtrace.service.buffer.BufferTesting.OTHER_PRODUCER;
import static io.jtrace.service.buffer.BufferTesting.PRODUCER;
import static io.jtrace.service.buffer.BufferTesting.chunkOf;
import static io.jtrace.service.buffer.BufferTesting.commit;
import static io.jtrace.service.buffer.BufferTesting.commitPadded;
import static io.jtrace.service.buffer.BufferTesting.dropMarked;
import static io.jtrace.service.buffer.BufferTesting.names;
import static io.jtrace.service.buffer.BufferTesting.onSequence;
import static io.jtrace.service.buffer.BufferTesting.pkt;
import static io.jtrace.service.buffer.BufferTesting.stats;
import static io.jtrace.service.buffer.BufferTesting.withoutServiceFields;
import static io.jtrace.service.buffer.ChunkPayload.chunk;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.InvalidProtocolBufferException;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TraceStats;
import io.jtrace.protos.TrackDescriptor;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.proto.WireFormat;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class TraceBufferTest {
    // ------------------------------------------------------------------ helpers

    /** A read after the session ended: everything stored is read, whatever is missing is reported lost. */
    private static List<TracePacket> readFinal(TraceBuffer buffer) {
        return BufferTesting.read(buffer, true).packets();
    }

    /** A read while the session still runs: each sequence stops where more data may yet arrive. */
    private static List<TracePacket> readWhileTracing(TraceBuffer buffer) {
        return BufferTesting.read(buffer, false).packets();
    }

    private static TracePacket named(List<TracePacket> packets, String name) {
        return packets.stream().filter(p -> p.getTrackEvent().getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no packet named " + name + " in " + names(packets)));
    }

    /** A packet big enough to split into fragments at arbitrary points. */
    private static TracePacket bigPacket(String name) {
        return TracePacket.newBuilder().setTimestamp(123456789L)
                .setTrackEvent(TrackEvent.newBuilder().setName(name).setTrackUuid(77)
                        .addCategories("x".repeat(300)))
                .build();
    }

    // ------------------------------------------------------------------ ordering

    @Test
    void packetsAreDeliveredInChunkIdOrderWhenChunksAreCommittedOutOfOrder() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        assertTrue(commit(buffer, 1, 2, chunkOf("c2-a", "c2-b")));
        assertTrue(commit(buffer, 1, 0, chunkOf("c0-a", "c0-b")));
        assertTrue(commit(buffer, 1, 1, chunkOf("c1-a")));

        List<TracePacket> packets = readFinal(buffer);

        assertEquals(List.of("c0-a", "c0-b", "c1-a", "c2-a", "c2-b"), names(packets));
        assertTrue(packets.stream().noneMatch(BufferTesting::dropMarked), "no loss: every chunk is there");
        assertEquals(2, stats(buffer).getChunksCommittedOutOfOrder(), "chunks 0 and 1 arrived after chunk 2");
    }

    @Test
    void chunkIdsAcrossThe32BitWrapAreReadInWrapOrder() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        assertTrue(commit(buffer, 1, 0xFFFFFFFE, chunkOf("fffffffe")));
        assertTrue(commit(buffer, 1, 0xFFFFFFFF, chunkOf("ffffffff")));
        assertTrue(commit(buffer, 1, 0, chunkOf("0")));
        assertTrue(commit(buffer, 1, 1, chunkOf("1")));

        List<TracePacket> packets = readFinal(buffer);

        assertEquals(List.of("fffffffe", "ffffffff", "0", "1"), names(packets));
        assertTrue(packets.stream().noneMatch(BufferTesting::dropMarked), "the wrap is not a gap");
    }

    @Test
    void chunkIdsAcrossThe32BitWrapAreReadInWrapOrderWhenCommittedShuffled() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        assertTrue(commit(buffer, 1, 0, chunkOf("0")));
        assertTrue(commit(buffer, 1, 0xFFFFFFFF, chunkOf("ffffffff")));
        assertTrue(commit(buffer, 1, 1, chunkOf("1")));
        assertTrue(commit(buffer, 1, 0xFFFFFFFE, chunkOf("fffffffe")));

        List<TracePacket> packets = readFinal(buffer);

        assertEquals(List.of("fffffffe", "ffffffff", "0", "1"), names(packets));
        assertTrue(packets.stream().noneMatch(BufferTesting::dropMarked));
    }

    @Test
    void sequencesAreReadIndependentlyEachInItsOwnOrder() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        assertTrue(commit(buffer, 1, 1, chunkOf("w1-c1")));
        assertTrue(commit(buffer, 2, 0, chunkOf("w2-c0")));
        assertTrue(commit(buffer, OTHER_PRODUCER, 1, 0, chunkOf("p2w1-c0")));
        assertTrue(commit(buffer, 1, 0, chunkOf("w1-c0")));
        assertTrue(commit(buffer, 2, 1, chunkOf("w2-c1")));

        List<TracePacket> packets = readFinal(buffer);

        assertEquals(List.of("w1-c0", "w1-c1"), names(onSequence(packets, PRODUCER, 1)));
        assertEquals(List.of("w2-c0", "w2-c1"), names(onSequence(packets, PRODUCER, 2)));
        assertEquals(List.of("p2w1-c0"), names(onSequence(packets, OTHER_PRODUCER, 1)),
                "the same writer id of another producer is another sequence");
    }

    @Test
    void aRetiredWritersSequenceKeepsItsChunksAndIdWhileTheWriterIdStartsANewSequence() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        Map<Integer, Integer> current = new HashMap<>();
        int[] next = {100};
        SequenceIdentity registry = new SequenceIdentity() {
            @Override
            public int sequenceId(int producerId, int writerId) {
                return current.computeIfAbsent(writerId, w -> next[0]++);
            }

            @Override
            public int pid(int producerId) {
                return 1;
            }

            @Override
            public int uid(int producerId) {
                return 1;
            }

            @Override
            public boolean trusted(int producerId) {
                return false;
            }
        };
        assertTrue(commit(buffer, 3, 0, chunkOf("old-0")));
        assertTrue(commit(buffer, 3, 1, chunkOf("old-1")));
        buffer.retireWriter(registry, PRODUCER, 3);
        current.remove(3); // what the service's registry does after the buffer
        assertTrue(commit(buffer, 3, 0, chunkOf("new-0")));
        assertTrue(commit(buffer, 3, 1, chunkOf("new-1")));
        assertEquals(2, buffer.sequenceCount());

        List<TracePacket> packets = BufferTesting.readAllWith(buffer, registry);

        assertEquals(List.of("old-0", "old-1", "new-0", "new-1"), names(packets));
        assertEquals(List.of(100, 100, 101, 101), packets.stream().map(TracePacket::getTrustedPacketSequenceId).toList());
        assertEquals(2, packets.stream().filter(TracePacket::getFirstPacketOnSequence).count());
        assertTrue(packets.stream().noneMatch(BufferTesting::dropMarked));
        assertEquals(0, stats(buffer).getChunksRewritten(), "the new writer's chunk 0 is not a re-commit of the old one's");
        assertEquals(1, buffer.sequenceCount(), "a retired sequence read to the end is dropped");
    }

    // ------------------------------------------------------------------ trusted fields

    @Test
    void trustedFieldsComeFromTheSequenceIdentity() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        assertTrue(commit(buffer, PRODUCER, 1, 0, chunkOf("p1-w1")));
        assertTrue(commit(buffer, PRODUCER, 7, 0, chunkOf("p1-w7")));
        assertTrue(commit(buffer, OTHER_PRODUCER, 1, 0, chunkOf("p2-w1")));

        List<TracePacket> packets = readFinal(buffer);

        assertEquals(3, packets.size());
        TracePacket p1w1 = named(packets, "p1-w1");
        TracePacket p1w7 = named(packets, "p1-w7");
        TracePacket p2w1 = named(packets, "p2-w1");
        assertAll(
                () -> assertEquals(1001, p1w1.getTrustedPacketSequenceId()),
                () -> assertEquals(1007, p1w7.getTrustedPacketSequenceId()),
                () -> assertEquals(2001, p2w1.getTrustedPacketSequenceId()),
                () -> assertEquals(4001, p1w1.getTrustedPid()),
                () -> assertEquals(4001, p1w7.getTrustedPid()),
                () -> assertEquals(4002, p2w1.getTrustedPid()),
                () -> assertEquals(5001, p1w1.getTrustedUid()),
                () -> assertEquals(5001, p1w7.getTrustedUid()),
                () -> assertEquals(5002, p2w1.getTrustedUid()));
    }

    @Test
    void trustedPidAndUidGoOnTheFirstPacketOfEachChunkAndOnTrackDescriptorsOnly() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        TracePacket descriptor = TracePacket.newBuilder()
                .setTrackDescriptor(TrackDescriptor.newBuilder().setUuid(42).setName("described")).build();
        assertTrue(commit(buffer, PRODUCER, 1, 0, chunk().packet(pkt("c0-a")).packet(pkt("c0-b"))
                .packet(descriptor).packet(pkt("c0-c"))));
        assertTrue(commit(buffer, PRODUCER, 1, 1, chunkOf("c1-a", "c1-b")));

        List<TracePacket> packets = readFinal(buffer);

        assertEquals(6, packets.size());
        assertEquals(List.of(true, false, true, false, true, false),
                packets.stream().map(p -> p.hasTrustedPid() && p.hasTrustedUid()).toList(),
                "c0-a (first of chunk 0), the descriptor, c1-a (first of chunk 1) carry them");
        assertTrue(packets.stream().filter(TracePacket::hasTrustedPid)
                .allMatch(p -> p.getTrustedPid() == 4001 && p.getTrustedUid() == 5001));
        assertTrue(packets.stream().allMatch(p -> p.getTrustedPacketSequenceId() == 1001),
                "the sequence id is on every packet");
    }

    @ParameterizedTest(name = "field {0}")
    @ValueSource(ints = {3, 10, 42, 79})
    void aPacketThatSetsAnyOneTrustedFieldIsDropped(int field) {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        byte[] forged = pkt("forged").toBuilder().setUnknownFields(com.google.protobuf.UnknownFieldSet.newBuilder()
                .addField(field, com.google.protobuf.UnknownFieldSet.Field.newBuilder().addVarint(1).build()).build())
                .build().toByteArray();
        TracePacket parsed;
        try {
            parsed = TracePacket.parseFrom(forged);
        } catch (InvalidProtocolBufferException e) {
            throw new AssertionError(e);
        }
        assertTrue(commit(buffer, 3, 0, chunk().packet(pkt("before")).packet(parsed).packet(pkt("after"))));

        assertEquals(List.of("before", "after"), names(readFinal(buffer)));
        assertEquals(1, buffer.counters().trustedFieldViolations());
    }

    @Test
    void packetsThatSetTrustedFieldsAreDroppedCountedAndReportedAsLoss() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        TracePacket forged = pkt("forged").toBuilder()
                .setTrustedUid(0)
                .setTrustedPacketSequenceId(1)
                .setTrustedPid(1)
                .build();
        assertTrue(commit(buffer, 3, 0, chunk().packet(pkt("before")).packet(forged).packet(pkt("after"))));

        List<TracePacket> packets = readFinal(buffer);

        assertEquals(List.of("before", "after"), names(packets));
        assertEquals(1, buffer.counters().invalidPackets());
        assertEquals(1, buffer.counters().trustedFieldViolations());
        assertEquals(0, packets.get(0).getPreviousPacketDropped());
        assertEquals(1, packets.get(1).getPreviousPacketDropped(), "the packet after the dropped one says so");
        assertEquals(1003, packets.get(1).getTrustedPacketSequenceId());
    }

    /**
     * A hostile producer ends its packet with a length-delimited field whose declared length covers
     * the bytes the buffer appends after it. If the buffer appends its trusted fields without checking
     * that the packet is well-formed, they end up inside that field and the producer's own forged
     * trusted_uid / trusted_packet_sequence_id (here: root, and the service's sequence 1) win.
     */
    @Test
    void aPacketWhoseLastFieldClaimsTheTrailerCannotForgeTrustedFields() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        int writer = 1;
        // What the buffer will append to this sequence's first packet (field order does not change the size).
        int trailerSize = TracePacket.newBuilder()
                .setTrustedUid(IDENTITY.uid(PRODUCER))
                .setTrustedPacketSequenceId(IDENTITY.sequenceId(PRODUCER, writer))
                .setTrustedPid(IDENTITY.pid(PRODUCER))
                .setFirstPacketOnSequence(true)
                .build().getSerializedSize();
        byte[] forgedFields = TracePacket.newBuilder().setTrustedUid(0).setTrustedPacketSequenceId(1).setTrustedPid(1)
                .build().toByteArray();
        byte[] hostile = new byte[forgedFields.length + 3];
        System.arraycopy(forgedFields, 0, hostile, 0, forgedFields.length);
        int tag = WireFormat.tag(36, WireFormat.LENGTH_DELIMITED); // synchronization_marker, bytes
        hostile[forgedFields.length] = (byte) (tag & 0x7F | 0x80);
        hostile[forgedFields.length + 1] = (byte) (tag >>> 7);
        hostile[forgedFields.length + 2] = (byte) trailerSize; // the open field swallows the trailer
        assertTrue(commit(buffer, writer, 0, chunk().frame(hostile).packet(pkt("honest"))));

        List<TracePacket> packets = readFinal(buffer);

        for (TracePacket p : packets) {
            assertEquals(IDENTITY.uid(PRODUCER), p.getTrustedUid(), "trusted_uid forged by the producer: " + p);
            assertEquals(IDENTITY.sequenceId(PRODUCER, writer), p.getTrustedPacketSequenceId(),
                    "trusted_packet_sequence_id forged by the producer: " + p);
            assertEquals(IDENTITY.pid(PRODUCER), p.getTrustedPid(), "trusted_pid forged by the producer: " + p);
        }
        assertTrue(names(packets).contains("honest"), "the well-formed packet after it is still delivered");
    }

    @Test
    void firstPacketOnSequenceIsSetOnTheFirstPacketOfEachSequenceOnly() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        assertTrue(commit(buffer, 1, 0, chunkOf("w1-0", "w1-1")));
        assertTrue(commit(buffer, 1, 1, chunkOf("w1-2")));
        assertTrue(commit(buffer, 2, 0, chunkOf("w2-0", "w2-1")));

        List<TracePacket> first = readWhileTracing(buffer);

        assertTrue(commit(buffer, 1, 2, chunkOf("w1-3")));
        assertTrue(commit(buffer, 2, 1, chunkOf("w2-2")));
        List<TracePacket> second = readFinal(buffer);

        List<String> flagged = new ArrayList<>();
        for (TracePacket p : first) {
            if (p.getFirstPacketOnSequence()) {
                flagged.add(p.getTrackEvent().getName());
            }
        }
        assertEquals(List.of("w1-0", "w2-0"), flagged);
        assertEquals(5, first.size());
        assertEquals(List.of("w1-3", "w2-2"), names(second));
        assertTrue(second.stream().noneMatch(TracePacket::getFirstPacketOnSequence),
                "a later read continues the sequences; it does not start them again");
    }

    // ------------------------------------------------------------------ fragments

    @Test
    void fragmentContinuedAcrossTwoChunksIsGluedIntoOnePacket() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        TracePacket big = bigPacket("spanning");
        byte[] bytes = big.toByteArray();
        int cut = 100;
        assertTrue(commit(buffer, 1, 0, chunkOf("before")
                .frame(Arrays.copyOfRange(bytes, 0, cut)).lastContinuesOnNext()));
        assertTrue(commit(buffer, 1, 1, chunk()
                .frame(Arrays.copyOfRange(bytes, cut, bytes.length)).firstContinuesFromPrev()
                .packet(pkt("after"))));

        List<TracePacket> packets = readFinal(buffer);

        assertEquals(List.of("before", "spanning", "after"), names(packets));
        assertEquals(big, withoutServiceFields(packets.get(1)));
        assertTrue(packets.stream().noneMatch(BufferTesting::dropMarked));
    }

    @Test
    void fragmentContinuedAcrossThreeChunksIsGluedIntoOnePacket() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        TracePacket big = bigPacket("three-chunks");
        byte[] bytes = big.toByteArray();
        int cut1 = 40;
        int cut2 = 200;
        assertTrue(commit(buffer, 1, 0, chunkOf("before")
                .frame(Arrays.copyOfRange(bytes, 0, cut1)).lastContinuesOnNext()));
        assertTrue(commit(buffer, 1, 1, chunk()
                .frame(Arrays.copyOfRange(bytes, cut1, cut2))
                .firstContinuesFromPrev().lastContinuesOnNext()));
        assertTrue(commit(buffer, 1, 2, chunk()
                .frame(Arrays.copyOfRange(bytes, cut2, bytes.length)).firstContinuesFromPrev()
                .packet(pkt("after"))));

        List<TracePacket> packets = readFinal(buffer);

        assertEquals(List.of("before", "three-chunks", "after"), names(packets));
        assertEquals(big, withoutServiceFields(packets.get(1)));
        assertTrue(packets.stream().noneMatch(BufferTesting::dropMarked));
    }

    @Test
    void fragmentWhoseRestIsCommittedAfterAReadIsGluedOnTheNextRead() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        TracePacket big = bigPacket("late-tail");
        byte[] bytes = big.toByteArray();
        int cut = 150;
        assertTrue(commit(buffer, 1, 0, chunkOf("before")
                .frame(Arrays.copyOfRange(bytes, 0, cut)).lastContinuesOnNext()));

        assertEquals(List.of("before"), names(readWhileTracing(buffer)), "the unfinished packet is held back");

        assertTrue(commit(buffer, 1, 1, chunk()
                .frame(Arrays.copyOfRange(bytes, cut, bytes.length)).firstContinuesFromPrev()));
        List<TracePacket> second = readFinal(buffer);

        assertEquals(1, second.size());
        assertEquals(big, withoutServiceFields(second.get(0)));
        assertFalse(dropMarked(second.get(0)));
    }

    @Test
    void continuationWhoseBeginningIsMissingIsDroppedAndTheNextPacketIsMarkedDropped() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        byte[] tail = Arrays.copyOfRange(bigPacket("orphan").toByteArray(), 50, 120);
        assertTrue(commit(buffer, 1, 5, chunk().frame(tail).firstContinuesFromPrev()
                .packet(pkt("next")).packet(pkt("later"))));

        List<TracePacket> packets = readFinal(buffer);

        assertEquals(List.of("next", "later"), names(packets), "the orphan tail is not delivered");
        assertEquals(1, packets.get(0).getPreviousPacketDropped());
        assertFalse(dropMarked(packets.get(1)));
    }

    @Test
    void gapInChunkIdsMarksPreviousPacketDroppedOnTheNextPacket() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        assertTrue(commit(buffer, 1, 0, chunkOf("c0-a", "c0-b")));
        assertTrue(commit(buffer, 1, 1, chunkOf("c1")));
        // chunk 2 never arrives
        assertTrue(commit(buffer, 1, 3, chunkOf("c3-a", "c3-b")));

        List<TracePacket> packets = readFinal(buffer);

        assertEquals(List.of("c0-a", "c0-b", "c1", "c3-a", "c3-b"), names(packets));
        assertEquals(1, named(packets, "c3-a").getPreviousPacketDropped());
        for (String name : List.of("c0-a", "c0-b", "c1", "c3-b")) {
            assertFalse(dropMarked(named(packets, name)), name + " is not after the gap");
        }
    }

    @Test
    void gapAfterAnUnfinishedFragmentDropsTheFragmentAndMarksTheNextPacket() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        byte[] bytes = bigPacket("broken").toByteArray();
        assertTrue(commit(buffer, 1, 0, chunkOf("before")
                .frame(Arrays.copyOfRange(bytes, 0, 60)).lastContinuesOnNext()));
        // chunk 1 (the middle of the packet) is missing
        assertTrue(commit(buffer, 1, 2, chunk()
                .frame(Arrays.copyOfRange(bytes, 120, bytes.length)).firstContinuesFromPrev()
                .packet(pkt("after"))));

        List<TracePacket> packets = readFinal(buffer);

        assertEquals(List.of("before", "after"), names(packets), "head + tail without the middle is not a packet");
        assertEquals(1, named(packets, "after").getPreviousPacketDropped());
    }

    // ------------------------------------------------------------------ full buffer

    @Test
    void ringPolicyOverwritesTheOldestChunksWhenFullAndMarksLossOnThatSequenceOnly() {
        TraceBuffer buffer = new TraceBuffer(3 * CHUNK_BYTES, TraceBuffer.Policy.RING);
        assertTrue(commitPadded(buffer, 1, 0, chunkOf("a0")));
        assertTrue(commitPadded(buffer, 1, 1, chunkOf("a1")));
        assertTrue(commitPadded(buffer, 1, 2, chunkOf("a2")));
        assertTrue(commitPadded(buffer, 2, 0, chunkOf("b0")), "RING always takes the new chunk");

        TraceStats.BufferStats stats = stats(buffer);
        assertEquals(1, stats.getChunksOverwritten());
        assertEquals(CHUNK_BYTES, stats.getBytesOverwritten());
        assertTrue(buffer.used() <= buffer.capacity());

        List<TracePacket> packets = readFinal(buffer);

        assertEquals(List.of("a1", "a2"), names(onSequence(packets, PRODUCER, 1)), "a0 was the oldest");
        assertEquals(List.of("b0"), names(onSequence(packets, PRODUCER, 2)));
        assertEquals(1, named(packets, "a1").getPreviousPacketDropped(), "the packet after the overwritten chunk");
        assertFalse(dropMarked(named(packets, "a2")));
        assertFalse(dropMarked(named(packets, "b0")), "the other sequence lost nothing");
    }

    @Test
    void ringPolicyKeepsOverwritingInAgeOrderAsChunksKeepComing() {
        TraceBuffer buffer = new TraceBuffer(3 * CHUNK_BYTES, TraceBuffer.Policy.RING);
        for (int id = 0; id < 10; id++) {
            assertTrue(commitPadded(buffer, 1, id, chunkOf("a" + id)));
        }

        List<TracePacket> packets = readFinal(buffer);

        assertEquals(List.of("a7", "a8", "a9"), names(packets));
        assertEquals(7, stats(buffer).getChunksOverwritten());
        assertEquals(7L * CHUNK_BYTES, stats(buffer).getBytesOverwritten());
        assertEquals(1, packets.get(0).getPreviousPacketDropped());
    }

    @Test
    void discardPolicyRefusesNewChunksWhenFullAndKeepsTheOldOnes() {
        TraceBuffer buffer = new TraceBuffer(3 * CHUNK_BYTES, TraceBuffer.Policy.DISCARD);
        assertTrue(commitPadded(buffer, 1, 0, chunkOf("a0")));
        assertTrue(commitPadded(buffer, 1, 1, chunkOf("a1")));
        assertTrue(commitPadded(buffer, 1, 2, chunkOf("a2")));

        assertFalse(commitPadded(buffer, 1, 3, chunkOf("a3")));
        assertFalse(commitPadded(buffer, 2, 0, chunkOf("b0")));

        TraceStats.BufferStats stats = stats(buffer);
        assertEquals(2, stats.getChunksDiscarded());
        assertEquals(0, stats.getChunksOverwritten());
        assertEquals(List.of("a0", "a1", "a2"), names(readFinal(buffer)));
    }

    /**
     * A refused chunk is a loss between the chunks already stored and the ones after it, so the flag
     * belongs on the first packet after it. Flagging an older packet that is still in the buffer makes
     * trace_processor invalidate that sequence's incremental state too early.
     */
    @Test
    void refusedChunkMarksLossOnThePacketAfterItNotOnOlderUnreadPackets() {
        TraceBuffer buffer = new TraceBuffer(3 * CHUNK_BYTES, TraceBuffer.Policy.DISCARD);
        assertTrue(commitPadded(buffer, 1, 0, chunkOf("a0")));
        assertTrue(commitPadded(buffer, 1, 1, chunkOf("a1")));
        assertTrue(commitPadded(buffer, 1, 2, chunkOf("a2")));
        assertFalse(commitPadded(buffer, 1, 3, chunkOf("a3")));

        List<TracePacket> kept = readWhileTracing(buffer);
        assertTrue(commitPadded(buffer, 1, 4, chunkOf("a4")));
        List<TracePacket> after = readFinal(buffer);

        assertEquals(List.of("a0", "a1", "a2"), names(kept));
        for (TracePacket p : kept) {
            assertFalse(dropMarked(p), p.getTrackEvent().getName() + " came before the refused chunk, nothing was lost before it");
        }
        assertEquals(List.of("a4"), names(after));
        assertEquals(1, after.get(0).getPreviousPacketDropped(), "a4 is the first packet after the refused chunk a3");
    }

    @Test
    void chunkLargerThanTheWholeBufferIsRefused() {
        TraceBuffer buffer = new TraceBuffer(512, TraceBuffer.Policy.RING);
        assertTrue(commit(buffer, 1, 0, chunkOf("small")));
        long usedBefore = buffer.used();

        assertFalse(buffer.copyChunk(PRODUCER, 2, 0, chunkOf("huge").packetsWord(),
                chunkOf("huge").bytesPaddedTo(513), true));

        assertEquals(usedBefore, buffer.used(), "nothing was evicted to make room for it");
        TraceStats.BufferStats stats = stats(buffer);
        assertTrue(stats.getChunksDiscarded() + stats.getAbiViolations() >= 1, "the refusal is counted: " + stats);
        assertEquals(List.of("small"), names(readFinal(buffer)));
    }

    // ------------------------------------------------------------------ re-commit, empty packets

    @Test
    void reCommitOfTheSameChunkWithMorePacketsReplacesItWithoutDuplicates() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        ChunkPayload partial = chunkOf("p0", "p1").count(1); // scraped while p1 was being written
        assertTrue(buffer.copyChunk(PRODUCER, 1, 0, partial.packetsWord(), partial.bytesPaddedTo(CHUNK_BYTES), false));
        ChunkPayload whole = chunkOf("p0", "p1", "p2");
        assertTrue(buffer.copyChunk(PRODUCER, 1, 0, whole.packetsWord(), whole.bytesPaddedTo(CHUNK_BYTES), true));
        assertTrue(commit(buffer, 1, 1, chunkOf("p3")));

        List<TracePacket> packets = readFinal(buffer);

        assertEquals(List.of("p0", "p1", "p2", "p3"), names(packets));
        assertTrue(packets.stream().noneMatch(BufferTesting::dropMarked));
        assertEquals(1, stats(buffer).getChunksRewritten());
        assertEquals(2, stats(buffer).getChunksWritten(), "a rewrite is not a new chunk");
    }

    @Test
    void emptyPacketsAreSkipped() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        assertTrue(commit(buffer, 1, 0, chunk().frame(new byte[0]).packet(pkt("x"))
                .frame(new byte[0]).frame(new byte[0]).packet(pkt("y")).frame(new byte[0])));

        List<TracePacket> packets = readFinal(buffer);

        assertEquals(List.of("x", "y"), names(packets));
        assertTrue(packets.stream().noneMatch(BufferTesting::dropMarked), "an empty packet is not a loss");
        assertEquals(0, stats(buffer).getAbiViolations());
    }

    @Test
    void sizeHeadersInAnyVarintFormAreRead() {
        // Our writers use the 4-byte redundant form, which the read-out decodes as one int; a producer
        // may use any valid varint: 1 byte, a 2- and a 3-byte redundant one, mixed with the 4-byte form.
        byte[] a = pkt("a").toByteArray();
        byte[] b = pkt("b").toByteArray();
        byte[] c = pkt("c").toByteArray();
        byte[] d = pkt("d").toByteArray();
        int[] aHeader = {a.length};
        int[] bHeader = {b.length | 0x80, 0};
        int[] cHeader = {c.length | 0x80, 0x80, 0};
        ChunkPayload payload = chunk().raw(aHeader).raw(toInts(a)).raw(bHeader).raw(toInts(b)).raw(cHeader)
                .raw(toInts(c)).packet(pkt("x")).raw(d.length).raw(toInts(d)).count(5);
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        assertTrue(commit(buffer, 1, 0, payload));

        List<TracePacket> packets = readFinal(buffer);

        assertEquals(List.of("a", "b", "c", "x", "d"), names(packets));
        assertEquals(0, stats(buffer).getAbiViolations());
    }

    private static int[] toInts(byte[] bytes) {
        int[] ints = new int[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            ints[i] = bytes[i] & 0xFF;
        }
        return ints;
    }

    // ------------------------------------------------------------------ hostile input

    static Stream<Named<ChunkPayload>> maliciousChunks() {
        int overflowingSize = WireFormat.redundantVarint(1000);
        return Stream.of(
                Named.of("size varint overflowing the chunk", chunkOf("m0")
                        .raw(overflowingSize & 0xFF, overflowingSize >>> 8 & 0xFF, overflowingSize >>> 16 & 0xFF,
                                overflowingSize >>> 24 & 0xFF, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
                        .count(2)),
                Named.of("size varint cut off by the end of the chunk", chunkOf("m0")
                        .raw(0x80, 0x80, 0x80).count(2)),
                Named.of("size varint that never terminates", chunkOf("m0")
                        .raw(0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF).count(2)),
                Named.of("size varint beyond 2^31", chunkOf("m0")
                        .raw(0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0, 0, 0).count(2)),
                Named.of("packet count larger than the data", chunkOf("m0", "m1").count(5)));
    }

    @ParameterizedTest
    @MethodSource("maliciousChunks")
    void malformedChunkCountsAnAbiViolationAndDoesNotHarmOtherSequences(ChunkPayload malicious) {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        int good = 1;
        int bad = 2;
        assertTrue(commit(buffer, good, 0, chunkOf("g0", "g1")));
        commit(buffer, bad, 0, malicious);
        assertTrue(commit(buffer, good, 1, chunkOf("g2", "g3")));
        assertTrue(commit(buffer, OTHER_PRODUCER, good, 0, chunkOf("o0")));
        assertTrue(commit(buffer, bad, 1, chunkOf("bad-next")));

        List<TracePacket> packets = readFinal(buffer);

        assertEquals(1, stats(buffer).getAbiViolations());
        List<TracePacket> goodPackets = onSequence(packets, PRODUCER, good);
        assertEquals(List.of("g0", "g1", "g2", "g3"), names(goodPackets));
        assertTrue(goodPackets.stream().noneMatch(BufferTesting::dropMarked));
        assertEquals(List.of("o0"), names(onSequence(packets, OTHER_PRODUCER, good)));
        List<TracePacket> badPackets = onSequence(packets, PRODUCER, bad);
        assertEquals("bad-next", badPackets.get(badPackets.size() - 1).getTrackEvent().getName(),
                "the bad sequence goes on with its next chunk");
        assertEquals(1, named(badPackets, "bad-next").getPreviousPacketDropped(),
                "what the corrupt chunk held is reported lost");
        assertTrue(names(badPackets).stream().allMatch(n -> n.equals("m0") || n.equals("m1") || n.equals("bad-next")),
                "nothing but the well-formed packets is delivered: " + names(badPackets));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 32768, 65535})
    void chunkWithAnInvalidWriterIdIsRefused(int writerId) {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);

        assertFalse(commit(buffer, writerId, 0, chunkOf("invalid")));

        assertEquals(1, stats(buffer).getAbiViolations());
        assertEquals(0, buffer.used());
        assertTrue(readFinal(buffer).isEmpty());
    }

    @Test
    void highestValidWriterIdIsAccepted() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);

        assertTrue(commit(buffer, 32767, 0, chunkOf("max")));

        assertEquals(List.of("max"), names(readFinal(buffer)));
    }

    // ------------------------------------------------------------------ reading

    @Test
    void readingRemovesWhatItRead() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        byte[] c0 = chunkOf("a", "b").bytes();
        byte[] c1 = chunkOf("c").bytes();
        assertTrue(buffer.copyChunk(PRODUCER, 1, 0, chunkOf("a", "b").packetsWord(), c0, true));
        assertTrue(buffer.copyChunk(PRODUCER, 2, 0, chunkOf("c").packetsWord(), c1, true));

        assertEquals(3, readWhileTracing(buffer).size());
        List<TracePacket> again = readFinal(buffer);

        assertTrue(again.isEmpty(), "a second read delivers nothing");
        assertEquals(0, buffer.used());
        TraceStats.BufferStats stats = stats(buffer);
        assertEquals(2, stats.getChunksRead());
        assertEquals(c0.length + c1.length, stats.getBytesRead());
        assertEquals(c0.length + c1.length, stats.getBytesWritten());
        assertEquals(2, stats.getChunksWritten());
    }

    @Test
    void readingFreesRoomForNewChunksWithoutOverwriting() {
        TraceBuffer buffer = new TraceBuffer(2 * CHUNK_BYTES, TraceBuffer.Policy.RING);
        assertTrue(commitPadded(buffer, 1, 0, chunkOf("a0")));
        assertTrue(commitPadded(buffer, 1, 1, chunkOf("a1")));
        assertEquals(List.of("a0", "a1"), names(readWhileTracing(buffer)));

        assertTrue(commitPadded(buffer, 1, 2, chunkOf("a2")));
        assertTrue(commitPadded(buffer, 1, 3, chunkOf("a3")));
        List<TracePacket> packets = readFinal(buffer);

        assertEquals(List.of("a2", "a3"), names(packets));
        assertEquals(0, stats(buffer).getChunksOverwritten());
        assertTrue(packets.stream().noneMatch(BufferTesting::dropMarked), "chunk ids continue across reads");
    }
}
