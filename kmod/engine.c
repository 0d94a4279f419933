// SPDX-License-Identifier: GPL-2.0
/*
 * The engine registry: the devices the core can hand requests to.
 *
 * The core (requests, contexts, netlink) knows engines only through
 * struct retire_engine and its ops, as the block layer knows drivers
 * through blk_mq_ops. The sim engine registers at module init and is
 * always there, with id RETIRE_ENGINE_SIM; a driver registers an engine
 * per device it binds and unregisters it when the device goes. Each
 * context is bound to one engine (the sim unless RETIRE_IOC_CONTEXT says
 * otherwise) and holds a reference to it, so an engine outlives its
 * device for as long as a context names it; an unregistered engine is
 * "gone": nothing more is admitted for it, and its driver ends at once
 * whatever it is still given.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mutex.h>
#include <linux/string.h>
#include <kunit/visibility.h>
#include <linux/retire.h>

#include "engine.h"

static LIST_HEAD(retire_engines);
static DEFINE_MUTEX(retire_engines_mutex);
static u32 retire_engine_next_id;

/**
 * retire_engine_register() - make an engine available to contexts
 * @e: the engine, its name, device, ops and description filled in
 *
 * Return: 0; the engine has its id and holds the registry's reference.
 */
int retire_engine_register(struct retire_engine *e)
{
	kref_init(&e->ref);
	e->gone = false;
	mutex_lock(&retire_engines_mutex);
	e->id = retire_engine_next_id++;
	list_add_tail(&e->node, &retire_engines);
	mutex_unlock(&retire_engines_mutex);
	pr_info("engine %u: %s%s%s\n", e->id, e->name, e->device[0] ? " " : "",
		e->device);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(retire_engine_register);

static void retire_engine_release(struct kref *ref)
{
	struct retire_engine *e = container_of(ref, struct retire_engine,
					       ref);

	if (e->ops->release)
		e->ops->release(e);
}

/**
 * retire_engine_unregister() - the engine's device is going
 * @e: a registered engine
 *
 * From here no context can bind to it and none admits more for it; the
 * contexts bound to it keep it (and their references) until they go. The
 * driver must already have ended every job it held. Drops the registry's
 * reference: the engine may be released in this call.
 */
void retire_engine_unregister(struct retire_engine *e)
{
	mutex_lock(&retire_engines_mutex);
	WRITE_ONCE(e->gone, true);
	list_del(&e->node);
	mutex_unlock(&retire_engines_mutex);
	retire_engine_put(e);
}
EXPORT_SYMBOL_IF_KUNIT(retire_engine_unregister);

/**
 * retire_engine_get() - the registered engine with this id
 * @id: RETIRE_IOC_CONTEXT's engine
 *
 * Return: the engine with a reference for the caller, or NULL if there is
 * none (never was, or unregistered).
 */
struct retire_engine *retire_engine_get(u32 id)
{
	struct retire_engine *e, *found = NULL;

	mutex_lock(&retire_engines_mutex);
	list_for_each_entry(e, &retire_engines, node)
		if (e->id == id) {
			kref_get(&e->ref);
			found = e;
			break;
		}
	mutex_unlock(&retire_engines_mutex);
	return found;
}
EXPORT_SYMBOL_IF_KUNIT(retire_engine_get);

/**
 * retire_engine_hold() - one more reference to an engine the caller holds
 * @e: the engine
 */
void retire_engine_hold(struct retire_engine *e)
{
	kref_get(&e->ref);
}

/**
 * retire_engine_put() - drop a reference
 * @e: the engine, or NULL
 *
 * The last one releases the driver's state (ops->release). May sleep.
 */
void retire_engine_put(struct retire_engine *e)
{
	if (e)
		kref_put(&e->ref, retire_engine_release);
}
EXPORT_SYMBOL_IF_KUNIT(retire_engine_put);

/**
 * retire_engine_list() - describe the registered engines, by id
 * @out:	room for @nr descriptions, or NULL with @nr 0
 * @nr:		its capacity
 *
 * The number of contexts bound to each is counted from the references:
 * all but the registry's.
 *
 * Return: how many engines there are (may exceed @nr: only @nr written).
 */
int retire_engine_list(struct retire_engine_info *out, u32 nr)
{
	struct retire_engine *e;
	int n = 0;

	mutex_lock(&retire_engines_mutex);
	list_for_each_entry(e, &retire_engines, node) {
		if (n < nr) {
			struct retire_engine_info *i = &out[n];

			memset(i, 0, sizeof(*i));
			i->id = e->id;
			i->flags = (e->ops->knobs_get ? RETIRE_ENGINE_F_KNOBS : 0) |
				   (e->dma_mask ? RETIRE_ENGINE_F_DMA : 0);
			strscpy(i->name, e->name, sizeof(i->name));
			strscpy(i->device, e->device, sizeof(i->device));
			i->dma_mask = e->dma_mask;
			i->max_transfer = e->max_transfer;
			i->contexts = kref_read(&e->ref) - 1;
			i->transfers = atomic64_read(&e->transfers);
			i->bounced = atomic64_read(&e->bounced);
		}
		n++;
	}
	mutex_unlock(&retire_engines_mutex);
	return n;
}

/**
 * retire_engine_present() - is an engine of this kind registered?
 * @name: its kind
 *
 * Return: true if so (GET_INFO's RETIRE_FEAT_EDU).
 */
bool retire_engine_present(const char *name)
{
	struct retire_engine *e;
	bool found = false;

	mutex_lock(&retire_engines_mutex);
	list_for_each_entry(e, &retire_engines, node)
		if (!strcmp(e->name, name)) {
			found = true;
			break;
		}
	mutex_unlock(&retire_engines_mutex);
	return found;
}

/* the engine that answers the sim's knob commands, held; NULL if none */
static struct retire_engine *retire_engine_with_knobs(void)
{
	struct retire_engine *e, *found = NULL;

	mutex_lock(&retire_engines_mutex);
	list_for_each_entry(e, &retire_engines, node)
		if (e->ops->knobs_get && e->ops->knobs_set && e->ops->reset) {
			kref_get(&e->ref);
			found = e;
			break;
		}
	mutex_unlock(&retire_engines_mutex);
	return found;
}

/**
 * retire_engine_knobs_get() - the knobs of the engine that has them
 * @cfg: filled; @cfg->op is left as the caller set it
 *
 * Return: 0, or -ENODEV if no engine has knobs.
 */
int retire_engine_knobs_get(struct retire_sim_config *cfg)
{
	struct retire_engine *e = retire_engine_with_knobs();
	int ret;

	if (!e)
		return -ENODEV;
	ret = e->ops->knobs_get(cfg);
	retire_engine_put(e);
	return ret;
}

/**
 * retire_engine_knobs_set() - set them; the caller checked privilege
 * @cfg: the knobs
 *
 * Return: what the engine says, or -ENODEV if no engine has knobs.
 */
int retire_engine_knobs_set(const struct retire_sim_config *cfg)
{
	struct retire_engine *e = retire_engine_with_knobs();
	int ret;

	if (!e)
		return -ENODEV;
	ret = e->ops->knobs_set(cfg);
	retire_engine_put(e);
	return ret;
}

/**
 * retire_engine_reset() - reset the engine that has knobs
 *
 * Return: 0 once none of its jobs will touch a buffer again, or -ENODEV.
 */
int retire_engine_reset(void)
{
	struct retire_engine *e = retire_engine_with_knobs();

	if (!e)
		return -ENODEV;
	e->ops->reset();
	retire_engine_put(e);
	return 0;
}
