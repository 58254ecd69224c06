package io.jtrace.ipc;

import com.google.protobuf.ByteString;
import io.jtrace.protos.IPCFrame;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Makes the frames a fuzz test sends: valid BindService, InvokeMethod and SetPeerIdentity frames with
 * random ids and arguments, and mutations of them (bit flips, truncation, extra bytes, random bytes). A
 * frame is its payload; {@link #frame} puts the true length before it, {@link #tamperedFrame} a wrong one.
 */
final class FrameMutator {
    private static final String[] SERVICE_NAMES = {EchoService.NAME, "Other", "", "Echo\u0000", "ProducerPort"};

    private final SplittableRandom random;
    private long requestId;

    FrameMutator(long seed) {
        this.random = new SplittableRandom(seed);
    }

    /** A valid frame's payload, or a mutation of one. */
    byte[] payload() {
        byte[] valid = validFrame().toByteArray();
        return switch (random.nextInt(8)) {
            case 0, 1, 2, 3 -> valid;
            case 4 -> flipBits(valid);
            case 5 -> Arrays.copyOf(valid, random.nextInt(valid.length + 1));
            case 6 -> appendRandom(valid);
            default -> randomBytes(random.nextInt(64));
        };
    }

    /** A valid BindService, InvokeMethod (mostly) or SetPeerIdentity frame. */
    IPCFrame validFrame() {
        IPCFrame.Builder frame = IPCFrame.newBuilder().setRequestId(++requestId);
        int kind = random.nextInt(16);
        if (kind == 0) {
            String name = random.nextInt(4) == 0 ? new String(randomBytes(random.nextInt(12)), java.nio.charset.StandardCharsets.ISO_8859_1)
                    : SERVICE_NAMES[random.nextInt(SERVICE_NAMES.length)];
            return frame.setMsgBindService(IPCFrame.BindService.newBuilder().setServiceName(name)).build();
        }
        if (kind == 1) {
            return frame.setSetPeerIdentity(IPCFrame.SetPeerIdentity.newBuilder().setPid(random.nextInt())).build();
        }
        IPCFrame.InvokeMethod.Builder call = IPCFrame.InvokeMethod.newBuilder()
                .setServiceId(random.nextInt(8) == 0 ? random.nextInt() : random.nextInt(4))
                .setMethodId(random.nextInt(8) == 0 ? random.nextInt() : random.nextInt(9))
                .setArgsProto(args());
        if (random.nextInt(4) == 0) {
            call.setDropReply(random.nextBoolean());
        }
        return frame.setMsgInvokeMethod(call).build();
    }

    /** The service's arguments: valid ones (a small stream count), or random bytes. */
    private ByteString args() {
        if (random.nextBoolean()) {
            return EchoService.message("fuzz", random.nextInt(6)).toByteString();
        }
        return ByteString.copyFrom(randomBytes(random.nextInt(48)));
    }

    /** {@code payload} with its true little-endian length before it. */
    static byte[] frame(byte[] payload) {
        return withLength(payload, payload.length);
    }

    /** {@code payload} with a wrong length before it: off by a little, huge, or anything. */
    byte[] tamperedFrame(byte[] payload) {
        long length = switch (random.nextInt(4)) {
            case 0 -> payload.length + random.nextInt(-4, 5);
            case 1 -> FrameDecoder.MAX_PAYLOAD + 1 + random.nextInt(1 << 20);
            case 2 -> random.nextInt(FrameDecoder.MAX_PAYLOAD + 1);
            default -> Integer.toUnsignedLong(random.nextInt());
        };
        return withLength(payload, Math.max(0, length));
    }

    private static byte[] withLength(byte[] payload, long length) {
        byte[] framed = Arrays.copyOf(FrameDecoderTest.header(length), FrameDecoder.HEADER_SIZE + payload.length);
        System.arraycopy(payload, 0, framed, FrameDecoder.HEADER_SIZE, payload.length);
        return framed;
    }

    private byte[] flipBits(byte[] bytes) {
        if (bytes.length == 0) {
            return bytes;
        }
        int flips = 1 + random.nextInt(3);
        for (int i = 0; i < flips; i++) {
            bytes[random.nextInt(bytes.length)] ^= (byte) (1 << random.nextInt(8));
        }
        return bytes;
    }

    private byte[] appendRandom(byte[] bytes) {
        byte[] extra = randomBytes(1 + random.nextInt(16));
        byte[] longer = Arrays.copyOf(bytes, bytes.length + extra.length);
        System.arraycopy(extra, 0, longer, bytes.length, extra.length);
        return longer;
    }

    private byte[] randomBytes(int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) random.nextInt(256);
        }
        return bytes;
    }

    int nextInt(int bound) {
        return random.nextInt(bound);
    }
}
