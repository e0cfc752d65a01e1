/* ring_buffer_unlock_commit() takes the buffer alone (6.2 dropped its event argument):
 * HWTAP_HAVE_RB_COMMIT_ONE_ARG. */
#include <linux/module.h>
#include <linux/ring_buffer.h>

void hwtap_probe(struct trace_buffer *buffer)
{
	ring_buffer_unlock_commit(buffer);
}
MODULE_LICENSE("GPL");
