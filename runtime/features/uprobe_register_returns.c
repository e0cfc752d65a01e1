/* uprobe_register() returns the uprobe, unregistering is uprobe_unregister_nosync() and
 * one uprobe_unregister_sync() (6.12): HWTAP_HAVE_UPROBE_REGISTER_RETURNS. */
#include <linux/module.h>
#include <linux/uprobes.h>

void hwtap_probe(struct inode *inode, struct uprobe_consumer *uc)
{
	struct uprobe *u = uprobe_register(inode, 0, 0, uc);

	uprobe_unregister_nosync(u, uc);
	uprobe_unregister_sync();
}
MODULE_LICENSE("GPL");
