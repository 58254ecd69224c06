package io.jtrace.shm.writer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.shm.proto.ProtoWriter;
import io.jtrace.shm.proto.WireFormat;
import io.jtrace.shm.testing.SmbRig;
import io.jtrace.shm.testing.SmbRigFixture;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A size field holds at most 2^28 − 1 (DESIGN §6). A packet spanning chunks has no other bound, so a
 * nested message can outgrow its size field; it must then be lost and reported, never delivered with a
 * size cut to 28 bits.
 */
class TraceWriterSizeLimitTest extends SmbRigFixture {
    @Test
    void nestedMessageLargerThanTheLargestSizeFieldIsDroppedNotDeliveredWithAWrappedSize() throws IOException {
        // 256 MiB through a 1 MiB SMB whose reader frees chunks as they are committed; payloads not kept.
        rig = new SmbRig(dir, 1024 * 1024, 32 * 1024, true);
        rig.keepPayloads = false;
        TraceWriter w = new TraceWriter(rig.arbiter, 0, SmbFullPolicy.STALL_THEN_DROP);
        byte[] piece = new byte[1 << 20];
        int length = WireFormat.MAX_RESERVED_SIZE + 1; // 2^28
        int annotationSize = 1 + WireFormat.varintSize(length) + length;
        ProtoWriter p = w.beginPacket();
        p.varint(8, 1);
        p.beginNested(11);
        p.beginNested(4);
        byte[] header = {(byte) (14 << 3 | 2), (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x01}; // proto_value, length 2^28
        assertEquals(WireFormat.varintSize(length), header.length - 1);
        p.raw(header, 0, header.length);
        for (int written = 0; written < length; written += piece.length) {
            p.raw(piece, 0, Math.min(piece.length, length - written));
        }
        try {
            p.endNested();
            p.endNested();
            w.endPacket();
        } catch (IllegalStateException e) {
            w.abortPacket(); // refusing the oversized message is fine too, as long as the packet is lost
        }
        rig.flush(w);
        rig.keepPayloads = true;

        List<CommitRequest.Patch> patches = rig.patchesOf(w.writerId());
        assertEquals(2, patches.size(), "both size fields were left in the first chunk");
        assertTrue(annotationSize > WireFormat.MAX_RESERVED_SIZE);
        for (CommitRequest.Patch patch : patches) {
            int delivered = WireFormat.decodeRedundantVarint(patch.value());
            assertTrue(delivered == 0, "a size of " + annotationSize + "+ bytes was delivered as " + delivered);
        }
        assertEquals(1, w.droppedPackets(), "the packet is counted as lost");
    }
}
