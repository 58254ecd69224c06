package io.jtrace.jfr.file;

/** One event's packet outgrew the converter's packet buffer; the event is skipped and counted. */
final class PacketTooLargeException extends RuntimeException {
    PacketTooLargeException(int limit) {
        super("packet larger than " + limit + " bytes", null, false, false);
    }
}
