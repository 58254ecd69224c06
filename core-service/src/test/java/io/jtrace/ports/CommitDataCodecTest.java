package io.jtrace.ports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.jtrace.protos.CommitDataRequest;
import io.jtrace.shm.writer.CommitRequest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CommitDataCodecTest {
    @Test
    void chunksPatchesAndRetiredWritersSurviveTheWire() {
        CommitRequest request = new CommitRequest(2);
        request.add(3, 1, 7);
        request.add(60, 13, 8, 1234, 8190);
        request.addPatch(new CommitRequest.Patch(5, 0xFFFF_FFF0, 12, 0x8012_3456, true));
        request.addPatch(new CommitRequest.Patch(5, 0xFFFF_FFF0, 40, 7, false));
        request.addPatch(new CommitRequest.Patch(6, 2, 0, -1, true));
        request.addRetiredWriter(9);

        List<CommitDataRequest> messages = CommitDataCodec.encode(request);
        assertEquals(1, messages.size());
        CommitDataRequest wire = messages.get(0);
        assertEquals(2, wire.getChunksToPatchCount(), "patches travel grouped by chunk");
        CommitRequest back = CommitDataCodec.decode(wire);

        assertEquals(2, back.size());
        assertEquals(60, back.page(1));
        assertEquals(13, back.chunk(1));
        assertEquals(8, back.targetBuffer(1));
        assertEquals(-1, back.payloadEnd(0), "no payload end sent, none received");
        assertEquals(1234, back.payloadEnd(1), "the payload end travels in jtrace's field");
        assertEquals(0, back.sequenceId(1), "a sequence id does not travel: the service takes none over IPC");
        assertEquals(request.patches(), back.patches());
        assertEquals(1, back.retiredWriterCount());
        assertEquals(9, back.retiredWriter(0));
    }

    @Test
    void aRequestTooLargeForOneFrameGoesAsSeveralThatKeepItsOrderAndStayUnderTheFrameLimit() {
        CommitRequest request = new CommitRequest(16);
        int chunks = 114_688; // a 32 MiB SMB of 4 KiB pages with 14 chunks each
        for (int i = 0; i < chunks; i++) {
            // With the largest payload end a 32 KiB page can have: its field is on every entry.
            request.add(i / 14, i % 14, 65_535, 32 * 1024 - 8, 0);
        }
        for (int i = 0; i < 3000; i++) {
            request.addPatch(new CommitRequest.Patch(1 + i % 7, i, 8, i, false));
        }
        request.addRetiredWriter(3);

        List<CommitDataRequest> messages = CommitDataCodec.encode(request);
        assertTrue(messages.size() > 1);
        CommitRequest joined = new CommitRequest(16);
        for (CommitDataRequest message : messages) {
            assertTrue(message.getSerializedSize() < 100 * 1024, "a message of " + message.getSerializedSize() + " bytes");
            CommitRequest part = CommitDataCodec.decode(message);
            for (int i = 0; i < part.size(); i++) {
                joined.add(part.page(i), part.chunk(i), part.targetBuffer(i), part.payloadEnd(i), 0);
            }
            part.patches().forEach(joined::addPatch);
            for (int i = 0; i < part.retiredWriterCount(); i++) {
                joined.addRetiredWriter(part.retiredWriter(i));
            }
            assertTrue(part.retiredWriterCount() == 0 || message == messages.get(messages.size() - 1),
                    "writers retire after their chunks and patches");
        }
        assertEquals(chunks, joined.size());
        assertEquals(chunks / 14 - 1, joined.page(chunks - 1));
        assertEquals(32 * 1024 - 8, joined.payloadEnd(chunks - 1));
        assertEquals(request.patches(), joined.patches());
        assertEquals(3, joined.retiredWriter(0));
    }

    /** Chunks with many patches each (deeply nested packets across chunks) beside a full batch of chunks. */
    @Test
    void manyPatchesPerChunkStillGoInMessagesUnderTheFrameLimitEachChunksPatchesTogether() {
        CommitRequest request = new CommitRequest(16);
        for (int i = 0; i < 4096; i++) {
            request.add(i / 14, i % 14, 3, 16 * 1024 - 8, 0);
        }
        int patchedChunks = 2000;
        int patchesEach = 16;
        for (int c = 0; c < patchedChunks; c++) {
            for (int p = 0; p < patchesEach; p++) {
                request.addPatch(new CommitRequest.Patch(1 + c % 7, c, 1000 + 4 * p, p, p < patchesEach - 1));
            }
        }

        List<CommitDataRequest> messages = CommitDataCodec.encode(request);
        List<CommitRequest.Patch> patches = new ArrayList<>();
        int moved = 0;
        for (CommitDataRequest message : messages) {
            assertTrue(message.getSerializedSize() < 100 * 1024, "a message of " + message.getSerializedSize() + " bytes");
            for (CommitDataRequest.ChunkToPatch chunk : message.getChunksToPatchList()) {
                assertEquals(patchesEach, chunk.getPatchesCount(), "a chunk's patches travel together");
            }
            CommitRequest part = CommitDataCodec.decode(message);
            moved += part.size();
            patches.addAll(part.patches());
        }
        assertEquals(4096, moved);
        assertEquals(request.patches(), patches, "every patch, in order");
    }

    @Test
    void aPayloadEndPastTwoToTheThirtyOneIsTakenAsNoHint() {
        CommitDataRequest wire = CommitDataRequest.newBuilder().addChunksToMove(CommitDataRequest.ChunksToMove
                .newBuilder().setPage(1).setChunk(2).setTargetBuffer(3).setJtracePayloadEnd(0x8000_0005)).build();
        assertEquals(-1, CommitDataCodec.decode(wire).payloadEnd(0));
    }

    @Test
    void aPatchThatIsNotFourBytesIsRefused() {
        CommitDataRequest wire = CommitDataRequest.newBuilder().addChunksToPatch(CommitDataRequest.ChunkToPatch.newBuilder()
                .setWriterId(1).setChunkId(1).addPatches(CommitDataRequest.ChunkToPatch.Patch.newBuilder()
                        .setOffset(0).setData(ByteString.copyFrom(new byte[3])))).build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CommitDataCodec.decode(wire));
        assertTrue(e.getMessage().contains("3 bytes"), e.getMessage());
    }

    @Test
    void chunksSentInlineAreRefused() {
        CommitDataRequest wire = CommitDataRequest.newBuilder().addChunksToMove(CommitDataRequest.ChunksToMove.newBuilder()
                .setPage(0).setChunk(0).setData(ByteString.copyFromUtf8("x"))).build();
        assertThrows(IllegalArgumentException.class, () -> CommitDataCodec.decode(wire));
    }

    @Test
    void aPageBeyondTwoToTheThirtyOneIsRefusedNotWrapped() {
        CommitDataRequest wire = CommitDataRequest.newBuilder().addChunksToMove(CommitDataRequest.ChunksToMove.newBuilder()
                .setPage(0x8000_0000).setChunk(0)).build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CommitDataCodec.decode(wire));
        assertTrue(e.getMessage().contains("2147483648"), e.getMessage());
    }
}
