package io.cronoq.scheduler.policy.limits;

/**
 * A waiting line as the limits see it: the limits its tasks name, what holds its head back now, and
 * what its head was last told; placement's lines extend it, and {@link Limits} opens and closes them
 * through {@link #admitted} and {@link #heldBack}. The state lives in fields of this class, read by
 * placement through final accessors (inlined like a field read), so a line that names no limit costs
 * nothing more than before.
 */
public abstract class Line {

    /** The concurrency keys and rate limits its tasks name, or {@code null} for none. */
    final LineLimits limits;
    /** While it has waiting tasks: the {@link LimitKey} or {@link RateLimit} that holds its head back, or {@code null}. */
    Object blockedBy;
    /** The blocker its head was last told of ({@code null}: none, it was told the slots' side). */
    Object told;

    /** A line whose tasks name these limits ({@code null}: none). */
    protected Line(LineLimits limits) {
        this.limits = limits;
    }

    /** The limits its tasks name, or {@code null} for none. */
    public final LineLimits limits() {
        return limits;
    }

    /** What holds its head back now ({@link Limits#reason} says it in words), or {@code null} when its limits admit it. */
    public final Object blockedBy() {
        return blockedBy;
    }

    /**
     * Whether its head, which waits, must be told why it waits now that its blocker changed; if so it
     * counts as told. A key's figures are told when they change (the text is compared by whoever
     * tells); a rate limit's only with another blocker.
     */
    public final boolean retold() {
        if (told == blockedBy && !(blockedBy instanceof LimitKey)) {
            return false;
        }
        told = blockedBy;
        return true;
    }

    /** Its limits admit its head: it joins its requirement class's open lines. */
    protected abstract void admitted();

    /** Its limits hold its head back (or it emptied): it leaves its requirement class's open lines. */
    protected abstract void heldBack();

    /** Its waiting tasks. */
    protected abstract long waiting();
}
