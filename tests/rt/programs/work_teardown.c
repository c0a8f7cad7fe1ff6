/*
 * A driver's teardown against its work item, in kernel C over
 * <weft/linux/kernel_compat.h>: an interrupt thread queues the work, which
 * writes into a buffer; remove() stops the interrupt, cancels the work and
 * frees the buffer. The bug cancels with cancel_work(), which does not wait
 * for a run in progress: the work writes the freed buffer. -DFIXED uses
 * cancel_work_sync(), which waits for it.
 *
 * weft-expect: bug use-after-free
 * weft-expect-fixed: verified
 * weft-cflags: -I@WEFT_INCLUDE@
 */
#include <weft/linux/kernel_compat.h>

struct dev {
	struct work_struct work;
	int *buf;
};

static struct dev dev;

static void work_fn(struct work_struct *w)
{
	struct dev *d = container_of(w, struct dev, work);

	d->buf[0]++;
}

static void *irq_thread(void *arg)
{
	(void)arg;
	queue_work(system_wq, &dev.work);
	return NULL;
}

int main(void)
{
	pthread_t irq;

	dev.buf = calloc(4, sizeof(int));
	INIT_WORK(&dev.work, work_fn);
	pthread_create(&irq, NULL, irq_thread, NULL);
	pthread_join(irq, NULL);        /* free_irq(): no more queueing */
#ifdef FIXED
	cancel_work_sync(&dev.work);
#else
	cancel_work(&dev.work);
#endif
	free(dev.buf);
	/* the driver is gone, the system goes on: main ends, the process
	 * does not (a return would end the kworker with it) */
	pthread_exit(NULL);
}
