/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RETIRE_ENGINE_EDU_H
#define _RETIRE_ENGINE_EDU_H

int retire_edu_init(void);
void retire_edu_exit(void);

#endif /* _RETIRE_ENGINE_EDU_H */
