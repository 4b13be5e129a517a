package io.cronoq.scheduler.topology;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.GangSubmitted;
import io.cronoq.events.TaskSubmitted;
import org.apache.avro.specific.SpecificRecord;

/**
 * How large a journal or assignments record may grow before its entries go on in the next record:
 * well under Kafka's default 1 MB limit on a record, with room for an estimate that counts payloads
 * and gang peers exactly and everything else generously.
 */
final class RecordBudget {

    /** The most bytes (estimated) one record carries unless a single entry is larger. */
    static final long RECORD_BYTES = 512 * 1024;

    /** What every entry is counted at besides its payload and peers: ids, labels, times, a reason. */
    private static final long ENTRY_BYTES = 1024;
    /** One gang peer: a worker id and an address. */
    private static final long PEER_BYTES = 300;

    private RecordBudget() {}

    /** An upper estimate of an entry's encoded size. */
    static long bytesOf(SpecificRecord event, String cause) {
        long bytes = ENTRY_BYTES + (cause == null ? 0 : 4L * cause.length());
        if (event instanceof AttemptAssigned a) {
            bytes += a.getPayload().remaining() + labels(a.getGroup())
                    + (a.getGang() == null ? 0 : PEER_BYTES * a.getGang().getPeers().size());
        } else if (event instanceof TaskSubmitted t) {
            bytes += t.getPayload().remaining() + labels(t.getLabels());
        } else if (event instanceof GangSubmitted g) {
            for (TaskSubmitted member : g.getMembers()) {
                bytes += ENTRY_BYTES + member.getPayload().remaining() + labels(member.getLabels());
            }
        }
        return bytes;
    }

    private static long labels(java.util.Map<String, String> labels) {
        long bytes = 0;
        for (java.util.Map.Entry<String, String> e : labels.entrySet()) {
            bytes += 8 + 4L * (e.getKey().length() + e.getValue().length());
        }
        return bytes;
    }
}
