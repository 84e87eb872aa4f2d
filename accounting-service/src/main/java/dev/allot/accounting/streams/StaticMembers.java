package dev.allot.accounting.streams;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.MemberToRemove;
import org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.jboss.logging.Logger;

/**
 * This instance's static members in its consumer group (the application id), and the two ways one is left behind
 * holding tasks that no thread works on until its session (45 s) ends:
 * <ul>
 * <li>a stream thread is fenced: its static id went to a member id it never learnt (a join retried across a broker
 * restart). Its replacement joins under the next index, and the group waits for the stale member; so the stale
 * member is removed ({@link #evictFenced}).</li>
 * <li>after such a replacement, the next start of the instance joins under the first indices again, and the
 * replacement's member waits out its session; so at start the members under this instance's id beyond its thread
 * count are removed ({@link #evictLeftovers}).</li>
 * </ul>
 * Kafka Streams gives each stream thread the static id {@code <instance id>-<thread index>}; the instance id is
 * unique per instance, so a member under it that none of the instance's threads uses can only be a leftover.
 */
public final class StaticMembers {

    private static final Logger LOG = Logger.getLogger(StaticMembers.class);
    /** Dynamic membership (no instance id): nothing is left behind that a restart cannot take over. */
    public static final StaticMembers NONE = new StaticMembers(null, null, null, 0);
    static final long ATTEMPT_MILLIS = 3_000;
    static final int ATTEMPTS = 3;
    private static final String THREAD_INDEX = "-StreamThread-";

    private final Supplier<Admin> admin;
    private final String groupId;
    private final String instanceId;
    private final int threads;

    /**
     * @param groupId the application id
     * @param instanceId this instance's {@code group.instance.id}; null or blank: {@link #NONE}
     * @param threads {@code num.stream.threads}
     */
    public StaticMembers(Supplier<Admin> admin, String groupId, String instanceId, int threads) {
        this.admin = admin;
        this.groupId = groupId;
        this.instanceId = instanceId == null || instanceId.isBlank() ? null : instanceId;
        this.threads = threads;
    }

    public boolean enabled() {
        return instanceId != null;
    }

    /** The static id of a stream thread by its name ({@code <client id>-StreamThread-<index>}), or null. */
    String staticIdOf(String threadName) {
        int at = threadName.lastIndexOf(THREAD_INDEX);
        if (!enabled() || at < 0) {
            return null;
        }
        return instanceId + "-" + threadName.substring(at + THREAD_INDEX.length());
    }

    /**
     * Removes the member that holds the fenced thread's static id. Called on the dying thread, before its
     * replacement exists, so the id removed is nobody's now; a broker that does not answer (still restarting) is
     * asked again, {@value #ATTEMPTS} times, then the group waits out the stale member's session as before.
     */
    public void evictFenced(String threadName) {
        String id = staticIdOf(threadName);
        if (id == null) {
            return;
        }
        try (Admin a = admin.get()) {
            for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
                try {
                    remove(a, List.of(id));
                    LOG.infof("removed the stale member %s from group %s: the replacement thread takes its tasks now",
                            id, groupId);
                    return;
                } catch (Exception e) {
                    if (unknownMember(e)) {
                        LOG.infof("no member %s in group %s any more", id, groupId);
                        return;
                    }
                    LOG.warnf("could not remove the stale member %s from group %s (attempt %d of %d): %s", id, groupId,
                            attempt, ATTEMPTS, e.toString());
                }
            }
        } catch (RuntimeException e) { // no admin client (its configuration): the group waits out the session
            LOG.warnf("could not remove the stale member %s from group %s: %s", id, groupId, e.toString());
        }
    }

    /** Removes the members under this instance's id that none of its threads joins under; returns their ids. */
    public List<String> evictLeftovers() {
        if (!enabled()) {
            return List.of();
        }
        try (Admin a = admin.get()) {
            ConsumerGroupDescription group = a.describeConsumerGroups(List.of(groupId)).describedGroups().get(groupId)
                    .get(ATTEMPT_MILLIS, TimeUnit.MILLISECONDS);
            List<String> leftovers = new ArrayList<>();
            for (MemberDescription member : group.members()) {
                member.groupInstanceId().filter(this::leftover).ifPresent(leftovers::add);
            }
            if (!leftovers.isEmpty()) {
                remove(a, leftovers);
                LOG.infof("removed leftover members %s from group %s (this instance runs %d stream threads)", leftovers,
                        groupId, threads);
            }
            return leftovers;
        } catch (Exception e) {
            LOG.warnf("could not look for leftover members of group %s: %s", groupId, e.toString());
            return List.of();
        }
    }

    boolean leftover(String staticId) {
        String prefix = instanceId + "-";
        if (!staticId.startsWith(prefix)) {
            return false;
        }
        try {
            return Integer.parseInt(staticId.substring(prefix.length())) > threads;
        } catch (NumberFormatException e) {
            return false; // another instance whose id extends ours ("local-0-x"): not ours
        }
    }

    private void remove(Admin a, List<String> staticIds) throws Exception {
        a.removeMembersFromConsumerGroup(groupId, new RemoveMembersFromConsumerGroupOptions(
                staticIds.stream().map(MemberToRemove::new).toList())).all().get(ATTEMPT_MILLIS, TimeUnit.MILLISECONDS);
    }

    private static boolean unknownMember(Exception e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof UnknownMemberIdException) {
                return true;
            }
        }
        return false;
    }
}
