package io.jtrace.service.buffer;

import static io.jtrace.service.buffer.BufferTesting.IDENTITY;
import static io.jtrace.service.buffer.BufferTesting.PRODUCER;
import static io.jtrace.service.buffer.BufferTesting.commit;
import static io.jtrace.service.buffer.BufferTesting.commitPadded;
import static io.jtrace.service.buffer.BufferTesting.names;
import static io.jtrace.service.buffer.BufferTesting.pkt;
import static io.jtrace.service.buffer.ChunkPayload.chunk;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.protos.Trace;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackDescriptor;
import io.jtrace.protos.TrackEvent;
import io.jtrace.service.output.TraceFileWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The read-out of a trusted (in-process) producer's Perfetto-framed chunks: its packets go to the sink
 * unvalidated. Except for what trust changes on purpose (no walk, so no track descriptor is found), the
 * bytes that reach a file must be exactly those an untrusted producer's same chunks give. (jtrace's own
 * writers file-frame their chunks: {@link FileFramedReadOutTest}.)
 */
class TrustedReadOutTest {
    private static final SequenceIdentity TRUSTED = BufferTesting.TRUSTED_IDENTITY;

    @TempDir
    Path dir;

    /**
     * Every case a run must stop at, or hand over whole: drop markers mid-chunk, an empty packet, a
     * fragment at each end, a missing chunk, lengths of one and two varint bytes, and a packet larger
     * than the file writer's buffer.
     */
    private static void commitEveryKindOfChunk(TraceBuffer buffer) {
        commitPadded(buffer, 1, 0, BufferTesting.chunkOf("a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7"));
        byte[] split = pkt("c-split-across-chunks").toByteArray();
        commitPadded(buffer, 1, 1, chunk().packet(pkt("b0")).packet(pkt("b1")).dropMarker().packet(pkt("b2"))
                .frame(new byte[0]).packet(pkt("b3")).frame(Arrays.copyOf(split, 9)).lastContinuesOnNext());
        commitPadded(buffer, 1, 2, chunk().frame(Arrays.copyOfRange(split, 9, split.length)).firstContinuesFromPrev()
                .packet(pkt("d0")).packet(pkt("d1")).packet(pkt("d2")).dropMarker());
        // Chunk 3 never comes: e0 reports the loss.
        commitPadded(buffer, 1, 4, BufferTesting.chunkOf("e0", "e1", "e2"));
        commit(buffer, 2, 0, chunk().packet(pkt("f0")).packet(pkt("f1-" + "x".repeat(300)))
                .packet(pkt("f2-" + "y".repeat(300 * 1024))).packet(pkt("f3")));
    }

    private static TraceBuffer filled(Consumer<TraceBuffer> commits) {
        TraceBuffer buffer = new TraceBuffer(4 << 20, TraceBuffer.Policy.RING);
        commits.accept(buffer);
        return buffer;
    }

    private byte[] readIntoFile(TraceBuffer buffer, SequenceIdentity identity, String name) throws IOException {
        Path file = dir.resolve(name);
        try (TraceFileWriter writer = new TraceFileWriter(file)) {
            buffer.readAll(identity, writer, true);
        }
        return Files.readAllBytes(file);
    }


    @Test
    void aTrustedProducersChunksReachTheFileByteForByteAsAnUntrustedProducersDo() throws IOException {
        byte[] untrusted = readIntoFile(filled(TrustedReadOutTest::commitEveryKindOfChunk), IDENTITY, "untrusted.pftrace");
        byte[] trusted = readIntoFile(filled(TrustedReadOutTest::commitEveryKindOfChunk), TRUSTED, "trusted.pftrace");

        assertArrayEquals(untrusted, trusted);
        List<TracePacket> packets = Trace.parseFrom(trusted).getPacketList();
        assertEquals(List.of("a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "b0", "b1", "b2", "b3",
                "c-split-across-chunks", "d0", "d1", "d2", "e0", "e1", "e2", "f0", "f1-" + "x".repeat(300),
                "f2-" + "y".repeat(300 * 1024), "f3"), names(packets));
        List<String> markedDropped = new ArrayList<>();
        packets.stream().filter(BufferTesting::dropMarked).forEach(p -> markedDropped.add(p.getTrackEvent().getName()));
        assertEquals(List.of("b2", "e0"), markedDropped, "after the drop marker, and after the chunk that never came");
    }

    @Test
    void aTrustedProducersPacketsReachAnyOtherSinkAsTheyReachTheFile() throws IOException {
        List<TracePacket> joined = BufferTesting.readAllWith(filled(TrustedReadOutTest::commitEveryKindOfChunk), TRUSTED);
        byte[] file = readIntoFile(filled(TrustedReadOutTest::commitEveryKindOfChunk), TRUSTED, "trusted.pftrace");

        assertEquals(Trace.parseFrom(file).getPacketList(), joined);
        assertTrue(joined.stream().allMatch(p -> p.getTrustedPacketSequenceId() == IDENTITY.sequenceId(PRODUCER, 1)
                || p.getTrustedPacketSequenceId() == IDENTITY.sequenceId(PRODUCER, 2)), "every packet names its sequence");
    }

    /**
     * What trust gives up: a trusted packet is not walked, so one that sets a field only the service may
     * set goes out (the service's value follows it and wins where it appends one), and a track descriptor
     * inside a chunk gets no pid (every descriptor the agent writes names its process or parent).
     */
    @Test
    void aTrustedProducersPacketsAreNotWalkedWhileAnUntrustedProducersAre() throws IOException {
        TracePacket setsUid = TracePacket.newBuilder().setTrustedUid(7).setTrackEvent(TrackEvent.newBuilder().setName("sets-uid")).build();
        TracePacket describes = TracePacket.newBuilder().setTrackDescriptor(TrackDescriptor.newBuilder().setUuid(5).setName("t")).build();
        Consumer<TraceBuffer> commits = buffer -> commitPadded(buffer, 1, 0,
                chunk().packet(pkt("first")).packet(setsUid).packet(describes).packet(pkt("last")));

        List<TracePacket> untrusted = Trace.parseFrom(readIntoFile(filled(commits), IDENTITY, "u.pftrace")).getPacketList();
        List<TracePacket> trusted = Trace.parseFrom(readIntoFile(filled(commits), TRUSTED, "t.pftrace")).getPacketList();

        assertEquals(List.of("first", "", "last"), names(untrusted), "the untrusted packet setting trusted_uid is refused");
        assertEquals(IDENTITY.pid(PRODUCER), untrusted.get(1).getTrustedPid(), "an untrusted descriptor gets the pid");
        assertEquals(List.of("first", "sets-uid", "", "last"), names(trusted));
        assertEquals(7, trusted.get(1).getTrustedUid());
        assertFalse(trusted.get(2).hasTrustedPid(), "a trusted descriptor inside a chunk is not looked for");
        assertEquals(IDENTITY.pid(PRODUCER), trusted.get(0).getTrustedPid(), "the chunk's first packet names the producer");
        assertFalse(trusted.stream().anyMatch(BufferTesting::dropMarked));
    }
}
